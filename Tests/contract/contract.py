"""Validates Pantry documents against schemas/ with an independent validator (python-jsonschema)."""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"


def _registry():
    resources = []
    for path in SCHEMAS.rglob("*.schema.json"):
        schema = json.loads(path.read_text())
        Draft202012Validator.check_schema(schema)
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


def validator(relative):
    schema = json.loads((SCHEMAS / relative).read_text())
    return Draft202012Validator(schema, registry=REGISTRY)


def command_errors(doc):
    kind = doc.get("type") if isinstance(doc, dict) else None
    path = SCHEMAS / "commands" / f"{kind}.schema.json"
    if not isinstance(kind, str) or not path.exists():
        return [f"unknown command type {kind!r}"]
    return [e.message for e in validator(f"commands/{kind}.schema.json").iter_errors(doc)]


def recorded_event_errors(doc):
    errors = [e.message for e in validator("recorded-event.schema.json").iter_errors(doc)]
    if not errors:
        errors += [e.message for e in validator(f"events/{doc['type']}.schema.json").iter_errors(doc["data"])]
    return errors


def event_payload_errors(kind, payload):
    return [e.message for e in validator(f"events/{kind}.schema.json").iter_errors(payload)]


def outcome_errors(doc):
    return [e.message for e in validator("outcome.schema.json").iter_errors(doc)]


def command_batch_errors(doc):
    return [e.message for e in validator("bus/command-batch.schema.json").iter_errors(doc)]


def outcome_batch_errors(doc):
    return [e.message for e in validator("bus/outcome-batch.schema.json").iter_errors(doc)]


def main(directory):
    """Checks every `command-*.json`, `event-<Type>-*.json` and `recorded-*.json` file in a directory.

    Used by the Swift contract test, which writes documents encoded from the Swift types.
    """
    failures = 0
    files = sorted(pathlib.Path(directory).glob("*.json"))
    for path in files:
        doc = json.loads(path.read_text())
        name = path.name
        if name.startswith("command-"):
            errors = command_errors(doc)
        elif name.startswith("event-"):
            errors = event_payload_errors(name.split("-")[1], doc)
        elif name.startswith("recorded-"):
            errors = recorded_event_errors(doc)
        elif name.startswith("outcome-"):
            errors = outcome_errors(doc)
        else:
            errors = [f"no schema for {name}"]
        for error in errors:
            failures += 1
            print(f"{name}: {error}")
    print(f"checked {len(files)} documents, {failures} errors")
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
