"""The Kubernetes Pod Security Standards (baseline and restricted), checked
on a pod spec in Python: the tests' own reading of the standard
(https://kubernetes.io/docs/concepts/security/pod-security-standards/, the
current version), written apart from the controller's C evaluator
(controller/run/policy.c) so that the two check each other. The test cluster
(Kubernetes 1.20) has no Pod Security admission to ask.

    violations(pod_spec, "restricted") -> [] when it passes, else what breaks
"""

BASELINE_CAPS = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                 "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                      "persistentVolumeClaim", "projected", "secret"}
SAFE_SYSCTLS = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
                "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies",
                "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"}
SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}


def _containers(spec):
    return [c for key in ("containers", "initContainers", "ephemeralContainers")
            for c in spec.get(key) or []]


def baseline_violations(spec, annotations=None):
    v = []
    psc = spec.get("securityContext") or {}
    for f in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(f):
            v.append(f"{f} is true")
    if (psc.get("windowsOptions") or {}).get("hostProcess"):
        v.append("hostProcess")
    for vol in spec.get("volumes") or []:
        if "hostPath" in vol:
            v.append(f"volume {vol.get('name')}: hostPath")
    for s in psc.get("sysctls") or []:
        if s.get("name") not in SAFE_SYSCTLS:
            v.append(f"sysctl {s.get('name')}")
    for key, where in ((psc, "pod"),):
        se = key.get("seLinuxOptions") or {}
        if se.get("type", "") not in SELINUX_TYPES or se.get("user") or se.get("role"):
            v.append(f"{where}: seLinuxOptions")
        if (key.get("seccompProfile") or {}).get("type") == "Unconfined":
            v.append(f"{where}: seccomp Unconfined")
        if (key.get("appArmorProfile") or {}).get("type") == "Unconfined":
            v.append(f"{where}: AppArmor Unconfined")
    for k, val in (annotations or {}).items():
        if k.startswith("container.apparmor.security.beta.kubernetes.io/") and \
                val != "runtime/default" and not val.startswith("localhost/"):
            v.append(f"AppArmor annotation {k}={val}")
    for c in _containers(spec):
        n = c.get("name")
        sc = c.get("securityContext") or {}
        if sc.get("privileged"):
            v.append(f"{n}: privileged")
        if (sc.get("windowsOptions") or {}).get("hostProcess"):
            v.append(f"{n}: hostProcess")
        added = set((sc.get("capabilities") or {}).get("add") or [])
        bad = {a for a in added if a.removeprefix("CAP_") not in BASELINE_CAPS}
        if bad:
            v.append(f"{n}: capabilities added beyond baseline: {sorted(bad)}")
        for p in c.get("ports") or []:
            if p.get("hostPort"):
                v.append(f"{n}: hostPort {p['hostPort']}")
        se = sc.get("seLinuxOptions") or {}
        if se.get("type", "") not in SELINUX_TYPES or se.get("user") or se.get("role"):
            v.append(f"{n}: seLinuxOptions")
        if sc.get("procMount") not in (None, "Default"):
            v.append(f"{n}: procMount {sc['procMount']}")
        if (sc.get("seccompProfile") or {}).get("type") == "Unconfined":
            v.append(f"{n}: seccomp Unconfined")
        if (sc.get("appArmorProfile") or {}).get("type") == "Unconfined":
            v.append(f"{n}: AppArmor Unconfined")
    return v


def restricted_violations(spec, annotations=None):
    """The checks of the "restricted" Pod Security Standard (baseline
    included) on a pod spec; [] when it passes."""
    v = baseline_violations(spec, annotations)
    psc = spec.get("securityContext") or {}
    for vol in spec.get("volumes") or []:
        kinds = set(vol) - {"name"}
        if not kinds <= RESTRICTED_VOLUMES:
            v.append(f"volume {vol.get('name')}: {sorted(kinds)}")
    for c in _containers(spec):
        n = c.get("name")
        sc = c.get("securityContext") or {}
        if sc.get("allowPrivilegeEscalation") is not False:
            v.append(f"{n}: allowPrivilegeEscalation is not false")
        caps = sc.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            v.append(f"{n}: capabilities do not drop ALL")
        if {a.removeprefix("CAP_") for a in caps.get("add") or []} - {"NET_BIND_SERVICE"}:
            v.append(f"{n}: capabilities added: {caps['add']}")
        if not sc.get("runAsNonRoot", psc.get("runAsNonRoot")):
            v.append(f"{n}: runAsNonRoot is not true")
        if sc.get("runAsUser", psc.get("runAsUser")) == 0:
            v.append(f"{n}: runAsUser 0")
        sp = (sc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type")
        if sp not in ("RuntimeDefault", "Localhost"):
            v.append(f"{n}: seccompProfile is {sp}")
    return v


def violations(spec, level="restricted", annotations=None):
    if level == "privileged":
        return []
    if level == "baseline":
        return baseline_violations(spec, annotations)
    return restricted_violations(spec, annotations)


def level(spec, annotations=None):
    """The narrowest level the pod spec meets."""
    if not restricted_violations(spec, annotations):
        return "restricted"
    if not baseline_violations(spec, annotations):
        return "baseline"
    return "privileged"
