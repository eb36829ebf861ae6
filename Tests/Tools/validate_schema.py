#!/usr/bin/env python3
"""Validates recipe files against Grammar/recipe.schema.json with an independent JSON Schema
validator (python-jsonschema, Draft 2020-12), the way a YAML editor's language server would.

Usage: validate_schema.py [--expect-invalid] [--schema PATH] FILE...

Prints one line per file, `FILE: ok` or `FILE: invalid: <first error>`. Exit status: 0 when every
file is valid (with --expect-invalid: when every file is rejected), 1 otherwise, 2 for usage
errors, 3 when a Python module is missing (jsonschema or yaml, i.e. PyYAML).

The schema itself is checked first with Draft202012Validator.check_schema. YAML is read with the
YAML 1.2 core schema, as yaml-language-server reads it: only true/false are booleans (`yes`, `on`
stay text) and `3:2` is text, not a base-60 number as in PyYAML's default YAML 1.1 rules.
"""
import argparse
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"validate_schema.py: python3 module `{e.name}` is missing "
          f"(pip install jsonschema pyyaml, or apt install python3-jsonschema python3-yaml)",
          file=sys.stderr)
    sys.exit(3)

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Grammar",
                              "recipe.schema.json")


class Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's implicit types instead of YAML 1.1's."""


Yaml12Loader.yaml_implicit_resolvers = {}
for tag, pattern, first in [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     "-+.0123456789"),
]:
    Yaml12Loader.add_implicit_resolver(tag, re.compile(pattern), list(first))


def _int12(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text)


def _float12(loader, node):
    text = loader.construct_scalar(node).lower()
    if text.endswith("inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    if text.endswith("nan"):
        return float("nan")
    return float(text)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int12)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _float12)


def short(text, limit=240):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def leaves(error):
    """The innermost errors under an anyOf/oneOf error."""
    if not error.context:
        yield error
    for child in error.context:
        yield from leaves(child)


def first_error(validator, document):
    """The most relevant error, as `at $.stages[2].exposure: message`: jsonschema's best_match,
    unless that only says the value is not a `$param` reference or null (every parameter also
    accepts those); then the deepest error of the real alternatives, such as the enum's."""
    errors = list(validator.iter_errors(document))
    error = jsonschema.exceptions.best_match(errors)
    if error is None:
        return None
    weak = [validator.schema.get("$defs", {}).get("param-ref"), {"type": "null"}]
    if error.schema in weak:
        real = [leaf for e in errors for leaf in leaves(e) if leaf.schema not in weak]
        if real:
            error = max(real, key=lambda leaf: len(leaf.absolute_path))
    where = "$"
    for part in error.absolute_path:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return f"at {where}: {short(error.message)}"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expect-invalid", action="store_true",
                        help="every file must be rejected (for the invalid fixtures)")
    parser.add_argument("--schema", default=DEFAULT_SCHEMA, help="the schema (default: Grammar/recipe.schema.json)")
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)

    try:
        with open(args.schema, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError) as e:
        print(f"{args.schema}: cannot read the schema: {short(e)}", file=sys.stderr)
        return 1
    except jsonschema.exceptions.SchemaError as e:
        print(f"{args.schema}: not a valid Draft 2020-12 schema: {short(e.message)}", file=sys.stderr)
        return 1
    validator = jsonschema.Draft202012Validator(schema)

    unexpected = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                document = yaml.load(f, Loader=Yaml12Loader)
            problem = first_error(validator, document)
        except OSError as e:
            problem = f"cannot read: {short(e)}"
        except yaml.YAMLError as e:
            problem = f"YAML error: {short(e)}"
        if problem is None:
            print(f"{path}: ok")
            unexpected += args.expect_invalid
        else:
            print(f"{path}: invalid: {problem}")
            unexpected += not args.expect_invalid
    if unexpected:
        wanted = "accepted" if args.expect_invalid else "rejected"
        print(f"{unexpected} of {len(args.files)} file(s) {wanted}, against expectation", file=sys.stderr)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
