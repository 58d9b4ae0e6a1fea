"""ocilayout.py: write a single-layer OCI image as an oci-layout tar archive,
the format `ctr images import`, `podman load`, `skopeo copy oci-archive:` and
`buildah pull oci-archive:` accept. Standard library only; no registry and no
daemon. Used by scripts/build-image.sh (the project's image) and by
tests/cluster/mkoci.py (the test cluster's pause and test images).

Everything in the archive has fixed timestamps, so the same layer and config
give the same digests.
"""
import gzip
import hashlib
import io
import json
import os
import tarfile

MANIFEST_MT = "application/vnd.oci.image.manifest.v1+json"
CONFIG_MT = "application/vnd.oci.image.config.v1+json"
LAYER_MT = "application/vnd.oci.image.layer.v1.tar"


def write_archive(out, name, layer, config, created, created_by, compress=False):
    """Writes OUT (atomically, via OUT.tmp) holding the image NAME
    ("registry/repo:tag") made of the uncompressed layer tar LAYER (bytes)
    and the image config CONFIG (the "config" object of the OCI image
    config: User, Env, Cmd, Labels...). COMPRESS stores the layer gzipped.
    Returns the manifest digest ("sha256:...")."""
    blobs = {}

    def blob(data):
        d = hashlib.sha256(data).hexdigest()
        blobs[d] = data
        return "sha256:" + d

    diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
    stored = gzip.compress(layer, compresslevel=6, mtime=0) if compress else layer
    image_config = {
        "architecture": "amd64",
        "os": "linux",
        "created": created,
        "config": config,
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created": created, "created_by": created_by}],
    }
    cb = json.dumps(image_config, sort_keys=True).encode()
    manifest = {
        "schemaVersion": 2,
        "mediaType": MANIFEST_MT,
        "config": {"mediaType": CONFIG_MT, "digest": blob(cb), "size": len(cb)},
        "layers": [{"mediaType": LAYER_MT + ("+gzip" if compress else ""),
                    "digest": blob(stored), "size": len(stored)}],
    }
    mb = json.dumps(manifest, sort_keys=True).encode()
    mdig = blob(mb)
    index = {
        "schemaVersion": 2,
        "manifests": [{
            "mediaType": MANIFEST_MT,
            "digest": mdig,
            "size": len(mb),
            "platform": {"architecture": "amd64", "os": "linux"},
            "annotations": {
                "io.containerd.image.name": name,
                "org.opencontainers.image.ref.name": name.rsplit(":", 1)[1],
            },
        }],
    }
    tmp = out + ".tmp"
    with tarfile.open(tmp, "w") as tf:
        def add(path, data):
            ti = tarfile.TarInfo(path)
            ti.size, ti.mtime, ti.mode = len(data), 0, 0o644
            tf.addfile(ti, io.BytesIO(data))
        add("oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode())
        add("index.json", json.dumps(index, sort_keys=True).encode())
        for d, data in sorted(blobs.items()):
            add("blobs/sha256/" + d, data)
    os.replace(tmp, out)
    return mdig, len(stored)
