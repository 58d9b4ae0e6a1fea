#!/usr/bin/env bash
# pki.sh: the test cluster's certificates, keys and admin token, made with
# openssl into $SB_PKI once and kept across cluster-down (so a kubeconfig
# written earlier stays valid). Regenerated when the recipe below changes
# or a file is missing. Sourced by up.sh; `bash pki.sh` also works.
#
#   ca.crt/key                    the cluster CA (also signs CSRs, --client-ca-file)
#   apiserver.crt/key             serving: 10.254.254.1 10.96.0.1 127.0.0.1 localhost kubernetes...
#   apiserver-kubelet-client      apiserver -> kubelet (O=system:masters)
#   admin                         CN=storagebench-admin, O=system:masters
#   kube-controller-manager       CN=system:kube-controller-manager
#   kube-scheduler                CN=system:kube-scheduler
#   kubelet-X (X = a, b, c)       CN=system:node:storagebench-X, O=system:nodes
#   kubelet-serving-X             node X's kubelet port, IP 10.254.254.1X
#   kube-proxy                    CN=system:kube-proxy (bound to system:node-proxier)
#   provisioner                   CN=storagebench:local-dir-provisioner
#   faultproxy                    serving: 127.0.0.1 localhost
#   sa.key/sa.pub                 ServiceAccount token signing
#   admin.token, tokens.csv       the admin bearer token
set -euo pipefail
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SB_PKI_RECIPE="ec-p256 r2 sans=$SB_API_IP,$SB_KUBERNETES_SVC_IP,127.0.0.1,localhost nodes=${SB_ALL_LETTERS[*]} kube-proxy"

# _sb_cert NAME SUBJECT EKU [SAN]: an EC P-256 key and a certificate signed
# by the CA.
_sb_cert() {
	local name=$1 subj=$2 eku=$3 san=${4:-} ext
	ext=$(mktemp)
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		echo "extendedKeyUsage=$eku"
		[ -n "$san" ] && echo "subjectAltName=$san"
	} >"$ext"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$SB_PKI/$name.key" 2>/dev/null
	openssl req -new -key "$SB_PKI/$name.key" -subj "$subj" -out "$SB_PKI/$name.csr" 2>/dev/null
	openssl x509 -req -in "$SB_PKI/$name.csr" -CA "$SB_PKI/ca.crt" -CAkey "$SB_PKI/ca.key" \
		-set_serial "0x$(openssl rand -hex 8)" -days 3650 -extfile "$ext" -out "$SB_PKI/$name.crt" 2>/dev/null
	rm -f "$ext" "$SB_PKI/$name.csr"
	chmod 600 "$SB_PKI/$name.key"
}

sb_pki() {
	local f
	if [ -f "$SB_PKI/recipe" ] && [ "$(cat "$SB_PKI/recipe")" = "$SB_PKI_RECIPE" ]; then
		local ok=1
		for f in ca admin apiserver apiserver-kubelet-client kube-controller-manager kube-scheduler kube-proxy \
			provisioner faultproxy "${SB_ALL_LETTERS[@]/#/kubelet-}" "${SB_ALL_LETTERS[@]/#/kubelet-serving-}"; do
			[ -s "$SB_PKI/$f.crt" ] && [ -s "$SB_PKI/$f.key" ] || ok=0
		done
		[ -s "$SB_PKI/sa.key" ] && [ -s "$SB_PKI/admin.token" ] || ok=0
		[ $ok = 1 ] && return 0
	fi
	sb_step "generating the CA, certificates and the admin token in $SB_PKI"
	rm -rf "$SB_PKI"
	mkdir -p "$SB_PKI"
	chmod 700 "$SB_PKI"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$SB_PKI/ca.key" 2>/dev/null
	openssl req -x509 -new -key "$SB_PKI/ca.key" -subj "/CN=storagebench-test-cluster-ca" -days 3650 \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
		-out "$SB_PKI/ca.crt" 2>/dev/null
	_sb_cert apiserver "/CN=kube-apiserver" serverAuth \
		"IP:$SB_API_IP,IP:$SB_KUBERNETES_SVC_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
	_sb_cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
	_sb_cert admin "/O=system:masters/CN=storagebench-admin" clientAuth
	_sb_cert kube-controller-manager "/CN=system:kube-controller-manager" clientAuth
	_sb_cert kube-scheduler "/CN=system:kube-scheduler" clientAuth
	_sb_cert kube-proxy "/CN=system:kube-proxy" clientAuth
	local l n
	for l in "${SB_ALL_LETTERS[@]}"; do
		n=$(sb_node_name "$l")
		_sb_cert "kubelet-$l" "/O=system:nodes/CN=system:node:$n" clientAuth
		_sb_cert "kubelet-serving-$l" "/CN=$n" serverAuth "IP:$(sb_node_ip "$l"),DNS:$n"
	done
	_sb_cert provisioner "/CN=storagebench:local-dir-provisioner" clientAuth
	_sb_cert faultproxy "/CN=storagebench-fault-proxy" serverAuth "IP:127.0.0.1,DNS:localhost"
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$SB_PKI/sa.key" 2>/dev/null
	openssl pkey -in "$SB_PKI/sa.key" -pubout -out "$SB_PKI/sa.pub" 2>/dev/null
	chmod 600 "$SB_PKI/sa.key"
	openssl rand -hex 24 >"$SB_PKI/admin.token"
	echo "$(cat "$SB_PKI/admin.token"),storagebench-admin,storagebench-admin,\"system:masters\"" >"$SB_PKI/tokens.csv"
	chmod 600 "$SB_PKI/admin.token" "$SB_PKI/tokens.csv"
	echo "$SB_PKI_RECIPE" >"$SB_PKI/recipe"
}

# sb_kubeconfig OUT SERVER USER [token|cert]: a kubeconfig with the CA and
# either the admin token or NAME's client certificate embedded.
sb_kubeconfig() {
	local out=$1 server=$2 user=$3 kind=${4:-cert} tmp
	tmp=$(mktemp "$out.XXXXXX")
	{
		echo "apiVersion: v1"
		echo "kind: Config"
		echo "clusters:"
		echo "- name: storagebench"
		echo "  cluster:"
		echo "    server: $server"
		echo "    certificate-authority-data: $(base64 -w0 "$SB_PKI/ca.crt")"
		echo "users:"
		echo "- name: $user"
		echo "  user:"
		if [ "$kind" = token ]; then
			echo "    token: $(cat "$SB_PKI/admin.token")"
		else
			echo "    client-certificate-data: $(base64 -w0 "$SB_PKI/$user.crt")"
			echo "    client-key-data: $(base64 -w0 "$SB_PKI/$user.key")"
		fi
		echo "contexts:"
		echo "- name: storagebench"
		echo "  context: {cluster: storagebench, user: $user}"
		echo "current-context: storagebench"
	} >"$tmp"
	chmod 600 "$tmp"
	mv "$tmp" "$out"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	sb_pki
fi
