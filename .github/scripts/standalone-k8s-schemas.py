#!/usr/bin/env python3
"""Kubernetes JSON schemas for kubeconform, offline: from the schemas the PyPI package
kubernetes-validate ships (its wheel, a zip), one Kubernetes version, strict and not, written as
kubeconform's "standalone" layout: one file per kind whose `$ref`s point into its own
`definitions` (draft 4, kubeconform's default; the package's point into a shared
`/api/_definitions.json` that kubeconform cannot resolve).

usage: standalone-k8s-schemas.py WHEEL VERSION OUT_DIR   (VERSION like v1.34.0)
Writes OUT_DIR/VERSION-standalone{,-strict}/<kind>-<group>-<version>.json.
"""

import json
import sys
import zipfile

# A kind's file refers into the shared file; the shared file's definitions into themselves.
PREFIXES = ("/api/_definitions.json#/$defs/", "#/$defs/")


def target(ref):
    """The definition `ref` names, or None."""
    if isinstance(ref, str):
        for prefix in PREFIXES:
            if ref.startswith(prefix):
                return ref[len(prefix):]
    return None


def refs(node, found):
    """Every definition name `node` refers to, directly."""
    if isinstance(node, dict):
        name = target(node.get("$ref"))
        if name is not None:
            found.add(name)
        for value in node.values():
            refs(value, found)
    elif isinstance(node, list):
        for value in node:
            refs(value, found)


def relocate(node):
    """`node` with its refs pointing into its own document's `$defs`."""
    if isinstance(node, dict):
        return {
            k: "#/definitions/" + target(v) if k == "$ref" and target(v) is not None else relocate(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [relocate(v) for v in node]
    return node


def main(wheel, version, out):
    import os

    root = "kubernetes_validate/kubernetes-json-schema/"
    with zipfile.ZipFile(wheel) as z:
        for flavour, suffix in (("local", ""), ("local-strict", "-strict")):
            base = f"{root}{version}-{flavour}/"
            definitions = json.loads(z.read(base + "_definitions.json"))["$defs"]
            target = os.path.join(out, f"{version}-standalone{suffix}")
            os.makedirs(target, exist_ok=True)
            names = [n for n in z.namelist() if n.startswith(base) and n.endswith(".json")]
            for name in names:
                leaf = name[len(base):]
                if leaf in ("_definitions.json", "all.json") or "/" in leaf:
                    continue
                schema = json.loads(z.read(name))
                needed, todo = set(), set()
                refs(schema, todo)
                while todo:
                    name_ = todo.pop()
                    if name_ in needed:
                        continue
                    needed.add(name_)
                    refs(definitions[name_], todo)
                schema = relocate(schema)
                if needed:
                    schema["definitions"] = {n: relocate(definitions[n]) for n in sorted(needed)}
                with open(os.path.join(target, leaf), "w") as f:
                    json.dump(schema, f)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
