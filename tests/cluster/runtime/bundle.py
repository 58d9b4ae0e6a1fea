"""bundle.py: the edit of an OCI bundle's config.json that the node runtime's
helpers share (faketime.py, blkio.py): read it, let patch(cfg) change it,
and when it says it did, write it back atomically. Exits with the reason
when the file cannot be read."""
import json
import os
import sys


def edit(path, patch, who):
    try:
        with open(path) as f:
            cfg = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{who}: {path}: {e}")
    if patch(cfg):
        tmp = f"{path}.{who}"
        with open(tmp, "w") as f:
            json.dump(cfg, f)
        os.replace(tmp, path)
