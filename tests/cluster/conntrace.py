#!/usr/bin/python3
"""conntrace.py: check the connect() traces of the test cluster.

With SB_TRACE_CONNECT=DIR, cluster-up runs every component (etcd, the API
server, the controller manager, the scheduler, the provisioner, the fault
proxy; per node containerd with its shims, runc, the CNI plugins and the
containers, the kubelet, kube-proxy with the iptables it runs) under
`strace -f -e trace=connect -o DIR/NAME.log` (a component the fault
helpers restart appends to its log). This reads those logs and fails on
any connect() to an address other than:

  - unix sockets (AF_UNIX), netlink, AF_UNSPEC (a UDP "disconnect")
  - IPv4 loopback 127.0.0.0/8, IPv6 ::1 (and ::ffff:127.x)
  - the sealed network between the namespaces, 10.254.254.0/24: the
    control plane 10.254.254.1, the nodes 10.254.254.11-13
  - pod addresses 10.244.0.0/16 (a /24 per node, CNI bridge)
  - Service addresses 10.96.0.0/24 (kube-proxy DNATs them to the above)
  - TEST-NET-1, 192.0.2.0/24 (RFC 5737: documentation only, never routed
    anywhere): the tests' deliberate probes that nothing gets out of a
    pod (test_podnet.py), which run inside the traced containers

    conntrace.py DIR     prints a summary per component, then "ok" or the
                         offending lines; exit 0 clean, 1 violations,
                         2 no traces found
"""
import ipaddress
import os
import re
import sys

ALLOWED_NETS = [ipaddress.ip_network(n) for n in
                ("127.0.0.0/8", "10.254.254.0/24", "10.244.0.0/16", "10.96.0.0/24", "192.0.2.0/24",
                 "::1/128")]
FAMILY = re.compile(r"connect\(\d+, \{sa_family=(AF_[A-Z0-9]+)")
INET4 = re.compile(r'sin_port=htons\((\d+)\), sin_addr=inet_addr\("([0-9.]+)"\)')
INET6 = re.compile(r'sin6_port=htons\((\d+)\).*inet_pton\(AF_INET6, "([0-9a-fA-F:.]+)"')


def allowed_ip(addr):
    ip = ipaddress.ip_address(addr)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in n for n in ALLOWED_NETS if n.version == ip.version)


def check_line(line):
    """None if the line is fine or not a connect(); else the reason."""
    m = FAMILY.search(line)
    if not m:
        return None
    fam = m.group(1)
    if fam in ("AF_UNIX", "AF_NETLINK", "AF_UNSPEC", "AF_LOCAL"):
        return None
    if fam == "AF_INET":
        a = INET4.search(line)
    elif fam == "AF_INET6":
        a = INET6.search(line)
    else:
        return f"address family {fam}"
    if not a:
        return f"unparsed {fam} address"
    port, addr = a.group(1), a.group(2)
    if allowed_ip(addr):
        return None
    return f"{addr}:{port}"


def check_dir(d):
    """Returns (summary lines, violations [(file, reason, line)], number of logs)."""
    summary, bad, n = [], [], 0
    for name in sorted(os.listdir(d)):
        if not name.endswith(".log"):
            continue
        n += 1
        counts = {}
        with open(os.path.join(d, name), errors="replace") as f:
            for line in f:
                m = FAMILY.search(line)
                if not m:
                    continue
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
                why = check_line(line)
                if why:
                    bad.append((name, why, line.strip()))
        total = sum(counts.values())
        summary.append(f"{name[:-4]}: {total} connect() calls "
                       f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items())) or 'none'})")
    return summary, bad, n


def main(argv):
    if len(argv) != 1:
        raise SystemExit(__doc__)
    if not os.path.isdir(argv[0]):
        print(f"conntrace: no trace directory {argv[0]}")
        return 2
    summary, bad, n = check_dir(argv[0])
    for s in summary:
        print("  " + s)
    if n == 0:
        print("conntrace: no traces")
        return 2
    if bad:
        print(f"conntrace: {len(bad)} connect() calls outside loopback and the cluster's own networks:")
        for name, why, line in bad[:50]:
            print(f"  {name}: {why}: {line[:300]}")
        return 1
    print("conntrace: ok, only loopback, the cluster's own networks (nodes, pods, Services) and unix sockets")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
