#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Validates Kubernetes manifests offline against the API's types, as Debian's
python3-kubernetes (the official client, generated from the Kubernetes OpenAPI schema)
defines them: every field known to its type (a misspelled one is an error, not ignored
as the API server's lenient decoding would), every value of its type (a string where a
string is due: an unquoted `true` in a nodeSelector is refused by the server too), every
required field present.

A field newer than the client's types (batch/v1 Job's backoffLimitPerIndex and
podFailurePolicy came with Kubernetes 1.28, after the client's 1.22) is learnt from
--schema FILE: a JSON fragment of a newer Kubernetes' OpenAPI definitions
({"definitions": {"io.k8s.api.batch.v1.JobSpec": {"properties": ...}, ...}}). Each
definition's properties are added to the client's type of the same version and kind
(io.k8s.api.batch.v1.JobSpec: V1JobSpec) and their values checked against the fragment
(JSON Schema, $ref within it); a property the client knows too is checked by both.

Usage: check-k8s.py [--schema FILE]... [FILE|-]...   (YAML, several documents each; - or
       none: stdin)
       kubectl kustomize deploy/k8s/overlays/site | scripts/check-k8s.py
Prints one line per document and each problem with its path; exits 1 on any problem."""
import datetime
import json
import re
import sys

import yaml

try:
    import kubernetes.client as k8s
    from kubernetes.client import ApiClient
except ImportError:
    sys.exit("check-k8s: needs python3-kubernetes (apt-get install python3-kubernetes)")


def model_of(doc):
    """The client's class name of a document: apps/v1 DaemonSet -> V1DaemonSet."""
    version = doc.get("apiVersion", "").split("/")[-1]
    name = version[:1].upper() + version[1:] + doc.get("kind", "")
    return name if hasattr(k8s, name) else None


SCHEMAS = []  # (the fragment, its definitions by the client's type name)


def load_schema(path):
    """Adds a fragment of OpenAPI definitions (--schema FILE) to what walk() knows."""
    frag = json.load(open(path))
    by_type = {}
    for name in frag.get("definitions", {}):
        m = re.fullmatch(r"io\.k8s\.api\.[a-z.]+\.(v[0-9a-z]+)\.(\w+)", name)
        if m:
            by_type[m.group(1)[:1].upper() + m.group(1)[1:] + m.group(2)] = name
    SCHEMAS.append((frag, by_type))


def schema_errs(value, typ, key, path):
    """None when no --schema defines property key of the client's type typ, else the
    problems of value against it."""
    import jsonschema
    for frag, by_type in SCHEMAS:
        name = by_type.get(typ)
        props = frag["definitions"][name].get("properties", {}) if name else {}
        if key in props:
            check = dict(props[key], definitions=frag["definitions"])
            v = jsonschema.Draft7Validator(check)
            return [f"{path}{'.' + '.'.join(map(str, e.absolute_path)) if e.absolute_path else ''}:"
                    f" {e.message}" for e in v.iter_errors(value)]
    return None


def walk(value, typ, path, errs):
    """Checks value against the client's type string typ; problems go to errs."""
    if value is None:
        return
    m = re.fullmatch(r"list\[(.+)\]", typ)
    if m:
        if not isinstance(value, list):
            errs.append(f"{path}: a list is due, not {type(value).__name__}")
            return
        for i, v in enumerate(value):
            walk(v, m.group(1), f"{path}[{i}]", errs)
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", typ)
    if m:
        if not isinstance(value, dict):
            errs.append(f"{path}: a map is due, not {type(value).__name__}")
            return
        for k, v in value.items():
            if not isinstance(k, str):
                errs.append(f"{path}: key {k!r} is not a string")
            walk(v, m.group(1), f"{path}.{k}", errs)
        return
    prim = {"str": (str,), "int": (int,), "float": (int, float), "bool": (bool,)}
    if typ in prim:
        ok = isinstance(value, prim[typ]) and not (typ != "bool" and isinstance(value, bool))
        if not ok:
            errs.append(f"{path}: {typ} is due, not {type(value).__name__} ({value!r})")
        return
    if typ == "datetime":
        if not isinstance(value, (str, datetime.datetime)):
            errs.append(f"{path}: a time is due")
        return
    if typ == "object":  # int-or-string, quantities, free-form
        return
    cls = getattr(k8s, typ, None)
    if cls is None:
        errs.append(f"{path}: unknown type {typ}")
        return
    if not isinstance(value, dict):
        errs.append(f"{path}: {typ} is due, not {type(value).__name__}")
        return
    by_json = {j: a for a, j in cls.attribute_map.items()}
    for key, v in value.items():
        newer = schema_errs(v, typ, key, f"{path}.{key}")
        if newer is not None:
            errs.extend(newer)
            if key not in by_json:
                continue
        if key not in by_json:
            errs.append(f"{path}.{key}: no such field in {typ}")
            continue
        walk(v, cls.openapi_types[by_json[key]], f"{path}.{key}", errs)


def check(doc):
    """The problems of one document (a list of strings)."""
    if not isinstance(doc, dict):
        return ["not a map"]
    name = model_of(doc)
    if not name:
        return [f"unknown apiVersion/kind {doc.get('apiVersion')}/{doc.get('kind')}"]
    errs = []
    walk(doc, name, doc.get("kind"), errs)
    if not errs:
        # required fields: the client's models refuse to be built without them
        try:
            ApiClient()._ApiClient__deserialize(doc, name)
        except (ValueError, TypeError) as e:
            errs.append(f"{doc.get('kind')}: {e}")
    if not (doc.get("metadata") or {}).get("name") and \
            not (doc.get("metadata") or {}).get("generateName"):
        errs.append(f"{doc.get('kind')}.metadata: neither name nor generateName")
    return errs


def main(argv):
    bad = 0
    while argv[:1] == ["--schema"] and len(argv) > 1:
        load_schema(argv[1])
        argv = argv[2:]
    for path in argv or ["-"]:
        text = sys.stdin.read() if path == "-" else open(path).read()
        try:
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
        except yaml.YAMLError as e:
            print(f"{path}: not YAML: {e}")
            bad += 1
            continue
        for d in docs:
            errs = check(d)
            meta = (d.get("metadata") or {}) if isinstance(d, dict) else {}
            what = f"{d.get('kind')}/{meta.get('name') or meta.get('generateName') or '?'}" \
                if isinstance(d, dict) else "?"
            print(f"{path}: {what}: {'ok' if not errs else 'INVALID'}")
            for e in errs:
                print(f"  {e}")
            bad += bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
