"""ocilayout.py: write OCI images as oci-layout tar archives, the format
`ctr images import`, `podman load`, `skopeo copy oci-archive:` and `buildah
pull oci-archive:` accept: a single-layer image for one platform
(write_archive: tests/cluster/mkoci.py, the test cluster's pause and test
images) or an image index of several platforms, each of several layers
(write_index_archive: scripts/build-image.sh, the project's image).
Standard library only; no registry and no daemon.

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
INDEX_MT = "application/vnd.oci.image.index.v1+json"
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
    _write_layout(out, index, blobs)
    return mdig, len(stored)


def _write_layout(out, index, blobs):
    """OUT (atomically, via OUT.tmp): oci-layout, index.json and the blobs."""
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


def write_index_archive(out, name, images, created, created_by, annotations=None):
    """Writes OUT (atomically) holding the image index NAME
    ("registry/repo:tag") of IMAGES, each a dict: "platform" (the OCI
    platform: {"architecture": "arm64", "os": "linux", "variant": "v8"}),
    "layers" (uncompressed layer tars, bytes, bottom first), "config" (the
    "config" object of the image config). Layers are stored gzipped
    (level 9, no timestamp), a layer two images share once. ANNOTATIONS go
    on the index. Returns (index digest, [per image: (platform, manifest
    digest, compressed bytes of its layers, uncompressed bytes)])."""
    blobs = {}

    def blob(data):
        d = hashlib.sha256(data).hexdigest()
        blobs[d] = data
        return "sha256:" + d

    gz = {}
    manifests, sizes = [], []
    for im in images:
        layers, diff_ids = [], []
        for layer in im["layers"]:
            diff = "sha256:" + hashlib.sha256(layer).hexdigest()
            if diff not in gz:
                gz[diff] = gzip.compress(layer, compresslevel=9, mtime=0)
            diff_ids.append(diff)
            layers.append({"mediaType": LAYER_MT + "+gzip", "digest": blob(gz[diff]), "size": len(gz[diff])})
        plat = dict(im["platform"])
        image_config = dict(plat, created=created, config=im["config"],
                            rootfs={"type": "layers", "diff_ids": diff_ids},
                            history=[{"created": created, "created_by": created_by}] * len(layers))
        cb = json.dumps(image_config, sort_keys=True).encode()
        manifest = {"schemaVersion": 2, "mediaType": MANIFEST_MT,
                    "config": {"mediaType": CONFIG_MT, "digest": blob(cb), "size": len(cb)},
                    "layers": layers}
        mb = json.dumps(manifest, sort_keys=True).encode()
        mdig = blob(mb)
        manifests.append({"mediaType": MANIFEST_MT, "digest": mdig, "size": len(mb), "platform": plat})
        sizes.append((plat, mdig, sum(x["size"] for x in layers), sum(len(x) for x in im["layers"])))
    idx = {"schemaVersion": 2, "mediaType": INDEX_MT, "manifests": manifests}
    if annotations:
        idx["annotations"] = dict(annotations)
    ib = json.dumps(idx, sort_keys=True).encode()
    idig = blob(ib)
    top = {"schemaVersion": 2, "mediaType": INDEX_MT, "manifests": [{
        "mediaType": INDEX_MT, "digest": idig, "size": len(ib),
        "annotations": {"io.containerd.image.name": name,
                        "org.opencontainers.image.ref.name": name.rsplit(":", 1)[1]}}]}
    _write_layout(out, top, blobs)
    return idig, sizes


def read_index_archive(path):
    """The images of an archive write_index_archive (or write_archive)
    wrote: a list, one per platform, of dicts "platform", "manifest" (its
    digest), "config" (the whole image config), "layers" (per layer: dict
    "digest", "size" (stored bytes), "raw" (uncompressed bytes), "members"
    (the layer's tarfile.TarInfo entries), "data" (the uncompressed tar)),
    and "name" (the image name the archive's index.json gives)."""
    with tarfile.open(path) as t:
        def blob(digest):
            return t.extractfile("blobs/sha256/" + digest.split(":", 1)[1]).read()
        top = json.loads(t.extractfile("index.json").read())
        images = []

        def walk(desc, name):
            if desc["mediaType"] == INDEX_MT:
                for d in json.loads(blob(desc["digest"]))["manifests"]:
                    walk(d, name)
                return
            man = json.loads(blob(desc["digest"]))
            cfg = json.loads(blob(man["config"]["digest"]))
            layers = []
            for ld in man["layers"]:
                stored = blob(ld["digest"])
                data = gzip.decompress(stored) if ld["mediaType"].endswith("+gzip") else stored
                with tarfile.open(fileobj=io.BytesIO(data)) as lt:
                    members = lt.getmembers()
                layers.append({"digest": ld["digest"], "size": len(stored), "raw": len(data),
                               "members": members, "data": data})
            plat = desc.get("platform") or {"architecture": cfg["architecture"], "os": cfg["os"]}
            images.append({"platform": plat, "manifest": desc["digest"], "config": cfg,
                           "layers": layers, "name": name})

        for d in top["manifests"]:
            walk(d, d.get("annotations", {}).get("io.containerd.image.name"))
    return images


def image_file(image, path):
    """The bytes of the regular file PATH ("usr/local/bin/x") in IMAGE (an
    entry of read_index_archive), the topmost layer's; None when absent."""
    for layer in reversed(image["layers"]):
        with tarfile.open(fileobj=io.BytesIO(layer["data"])) as lt:
            try:
                m = lt.getmember(path)
            except KeyError:
                continue
            return lt.extractfile(m).read() if m.isreg() else None
    return None
