#!/usr/bin/python3
"""netem.py: a constant link delay and random loss in user space, for
`fault.sh netem X delay D loss P%` on a kernel without the netem qdisc (this machine's: CONFIG_NET_SCH_NETEM
is not set, `tc qdisc add ... netem` answers "Specified qdisc kind is
unknown").

fault.sh runs it inside node X's network namespace, where an iptables rule
(mangle POSTROUTING -o eth0 -j NFQUEUE --queue-num Q --queue-bypass) hands
it every packet leaving the node's link. It drops each with probability P
(an NF_DROP verdict: silent, as netem's loss is; a DROP rule would make a
local sender's sendto() fail with EPERM), holds the others for the delay and
then lets them go (NF_ACCEPT), in arrival order, as netem's constant delay
does: every packet is late by the delay, never by less; the round trip
through the node grows by it.

It speaks nfnetlink_queue itself (standard library only): binds queue Q,
copies packet metadata only, fail-open (a full queue passes packets at once,
never drops them), batch verdicts for the packets that are due. If it dies,
--queue-bypass lets the traffic through undelayed.

    netem.py --queue Q --delay-us US [--loss P]   (P from 0 to 1)
"""
import argparse
import collections
import errno
import os
import random
import select
import signal
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG, NFQNL_MSG_VERDICT_BATCH = 0, 1, 2, 3
NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
NFQA_CFG_CMD, NFQA_CFG_PARAMS, NFQA_CFG_QUEUE_MAXLEN, NFQA_CFG_MASK, NFQA_CFG_FLAGS = 1, 2, 3, 4, 5
NFQNL_CFG_CMD_BIND, NFQNL_CFG_CMD_UNBIND = 1, 2
NFQNL_COPY_META = 1
NFQA_CFG_F_FAIL_OPEN = 1
NF_DROP, NF_ACCEPT = 0, 1
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
SO_RCVBUFFORCE = 33


def attr(kind, data):
    n = 4 + len(data)
    return struct.pack("=HH", n, kind) + data + b"\0" * ((4 - n % 4) % 4)


class Queue:
    def __init__(self, num):
        self.num = num
        self.seq = 0
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.s.bind((0, 0))
        try:
            self.s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        except OSError:
            pass

    def send(self, msg, attrs, flags=NLM_F_REQUEST):
        self.seq += 1
        body = struct.pack("=BBH", socket.AF_UNSPEC, 0, socket.htons(self.num)) + b"".join(attrs)
        hdr = struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | msg, flags, self.seq, 0)
        self.s.send(hdr + body)

    def config(self, attrs):
        """A config message, acknowledged; OSError on the kernel's refusal."""
        self.send(NFQNL_MSG_CONFIG, attrs, NLM_F_REQUEST | NLM_F_ACK)
        while True:
            data = self.s.recv(65536)
            for mtype, payload in self.messages(data):
                if mtype == NLMSG_ERROR:
                    code = struct.unpack_from("=i", payload)[0]
                    if code:
                        raise OSError(-code, os.strerror(-code))
                    return

    @staticmethod
    def messages(data):
        off = 0
        while off + 16 <= len(data):
            n, mtype = struct.unpack_from("=IH", data, off)
            if n < 16:
                return
            yield mtype, data[off + 16:off + n]
            off += (n + 3) & ~3

    def bind(self):
        self.config([attr(NFQA_CFG_CMD, struct.pack("=BBH", NFQNL_CFG_CMD_BIND, 0, 0))])
        self.config([attr(NFQA_CFG_PARAMS, struct.pack(">IB", 0, NFQNL_COPY_META))])
        self.config([attr(NFQA_CFG_QUEUE_MAXLEN, struct.pack(">I", 20000))])
        self.config([attr(NFQA_CFG_MASK, struct.pack(">I", NFQA_CFG_F_FAIL_OPEN)),
                     attr(NFQA_CFG_FLAGS, struct.pack(">I", NFQA_CFG_F_FAIL_OPEN))])

    def packet_ids(self, data):
        """The packet ids of the NFQNL_MSG_PACKET messages in data."""
        for mtype, payload in self.messages(data):
            if mtype != (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                continue
            off = 4  # nfgenmsg
            while off + 4 <= len(payload):
                n, kind = struct.unpack_from("=HH", payload, off)
                if n < 4:
                    break
                if kind & 0x7FFF == NFQA_PACKET_HDR:
                    yield struct.unpack_from(">I", payload, off + 4)[0]
                    break
                off += (n + 3) & ~3

    def drop(self, pid):
        self.send(NFQNL_MSG_VERDICT, [attr(NFQA_VERDICT_HDR, struct.pack(">II", NF_DROP, pid))])

    def accept_upto(self, pid):
        """NF_ACCEPT for every queued packet with an id up to pid."""
        self.send(NFQNL_MSG_VERDICT_BATCH, [attr(NFQA_VERDICT_HDR, struct.pack(">II", NF_ACCEPT, pid))])


def run(q, delay, loss, held):
    """Drops each packet with probability loss, holds the others for delay
    seconds; held: (due, packet id) in arrival order."""
    while True:
        now = time.monotonic()
        last = None
        while held and held[0][0] <= now:
            last = held.popleft()[1]
        if last is not None:
            q.accept_upto(last)
        timeout = max(0.0, held[0][0] - time.monotonic()) if held else None
        r, _, _ = select.select([q.s], [], [], timeout)
        if not r:
            continue
        try:
            data = q.s.recv(1 << 20)
        except OSError as e:
            if e.errno == errno.ENOBUFS:  # the kernel's queue is fail-open: nothing lost
                continue
            raise
        t = time.monotonic() + delay
        for pid in q.packet_ids(data):
            if loss and random.random() < loss:
                q.drop(pid)
            else:
                held.append((t, pid))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queue", type=int, required=True)
    ap.add_argument("--delay-us", type=int, required=True)
    ap.add_argument("--loss", type=float, default=0.0)
    a = ap.parse_args()
    if not 0 <= a.queue <= 65535 or a.delay_us < 0 or not 0 <= a.loss <= 1:
        ap.error("--queue must be 0..65535, --delay-us at least 0, --loss from 0 to 1")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    q = Queue(a.queue)
    q.bind()
    print(f"netem: queue {a.queue} bound, delay {a.delay_us} us, loss {a.loss:g}", flush=True)
    held = collections.deque()
    try:
        run(q, a.delay_us / 1e6, a.loss, held)
    finally:
        try:
            # the packets held now go at once (an unbound queue would drop them)
            if held:
                q.accept_upto(held[-1][1])
            q.config([attr(NFQA_CFG_CMD, struct.pack("=BBH", NFQNL_CFG_CMD_UNBIND, 0, 0))])
        except OSError:
            pass


if __name__ == "__main__":
    main()
