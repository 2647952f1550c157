#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
"""Check every HTTP exchange the integration tests recorded against the API contract (docs/openapi.yaml).

tests/support/httpclient.cpp appends one JSON line per exchange to <dir>/<pid>.jsonl when
MARQUEE_RECORD_HTTP_DIR is set. Each line is matched to its operation by method and path template and checked:

- the status is one the operation documents (or a documented range such as 4XX, or default);
- the body (JSON, inflated when Content-Encoding says deflate) validates against that response's schema;
- a response that documents no body has none, and one that documents a JSON body has one;
- headers the response documents as required are present, and Content-Encoding only where documented;
- every answer carries X-Request-Id (components.headers.RequestId), the request's own one when that was plausible;
- in a POST /api/v1/sync/batch answer, every action refused (status >= 400) carries an Error body;
- a path no operation has must be 404 `not_found`, a known path with another method 405 `method_not_allowed`
  with an Allow header (the router's answers, documented in info.description).

Any mismatch fails (exit 1) with a list: operation, status, the first validation error, the request. The
operations no recorded exchange reached are listed too (information, not a failure).

Needs python3-yaml and python3-jsonschema (Debian packages; scripts/common.sh installs them).
"""
import argparse
import base64
import collections
import json
import os
import re
import sys
import warnings
import zlib

# RefResolver is all Debian 12's jsonschema (4.10) has; newer ones warn that it is deprecated.
warnings.filterwarnings("ignore", category=DeprecationWarning)

try:
    import yaml
    import jsonschema
except ImportError as error:  # pragma: no cover - an install problem, said plainly
    sys.exit(f"validate_responses: {error}; install python3-yaml and python3-jsonschema")

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


class Contract:
    """The operations of an OpenAPI document, matched like server/http/router.cpp matches routes."""

    def __init__(self, spec):
        self.spec = spec
        self.resolver = jsonschema.RefResolver.from_schema(spec)
        self.validators = {}
        self.routes = []  # (segments, template, {method: operation})
        for template, item in spec.get("paths", {}).items():
            operations = {m.upper(): item[m] for m in METHODS if m in item}
            segments = [s for s in template.split("/") if s]
            self.routes.append((segments, template, operations))
        # Literal segments before parameters, as a request path names one resource.
        self.routes.sort(key=lambda r: sum(1 for s in r[0] if s.startswith("{")))

    def match(self, path):
        """The (template, operations) whose template matches the path, or None."""
        segments = [s for s in path.split("/") if s]
        for route_segments, template, operations in self.routes:
            if len(route_segments) != len(segments):
                continue
            if all(r.startswith("{") and r.endswith("}") or r == s for r, s in zip(route_segments, segments)):
                return template, operations
        return None

    def deref(self, node):
        while isinstance(node, dict) and "$ref" in node:
            _, node = self.resolver.resolve(node["$ref"])
        return node

    def validator(self, schema):
        key = json.dumps(schema, sort_keys=True)
        if key not in self.validators:
            self.validators[key] = jsonschema.Draft202012Validator(schema, resolver=self.resolver)
        return self.validators[key]

    @staticmethod
    def response_for(operation, status):
        responses = operation.get("responses", {})
        for key in (str(status), f"{str(status)[0]}XX", "default"):
            if key in responses:
                return key, responses[key]
        return None, None


def load_records(directory):
    records = []
    bad_lines = 0
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as file:
            for line in file:
                line = line.strip()
                if not line:
                    continue
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    bad_lines += 1  # a line cut by a killed process: not the server's fault
    return records, bad_lines


def response_body(record):
    """The JSON body as a Python value; (None, reason) when there is none or it cannot be read."""
    if "body" in record:
        text = record["body"]
    elif "body_base64" in record:
        raw = base64.b64decode(record["body_base64"])
        encoding = record.get("headers", {}).get("content-encoding", "").lower()
        if encoding != "deflate":
            return None, f"unknown Content-Encoding {encoding!r}"
        try:
            text = zlib.decompress(raw).decode("utf-8")
        except zlib.error:
            try:
                text = zlib.decompress(raw, -zlib.MAX_WBITS).decode("utf-8")
            except zlib.error as error:
                return None, f"the deflated body does not inflate: {error}"
    else:
        return None, None
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        return None, f"the body is not valid JSON: {error}"


def describe_request(record):
    text = f"{record.get('method')} {record.get('path')}"
    sent = record.get("request_headers") or {}
    if sent:
        text += " " + " ".join(f"{k}: {v}" for k, v in sorted(sent.items()))
    if record.get("request_body"):
        body = record["request_body"]
        text += " body " + (body if len(body) <= 300 else body[:300] + "…")
    return text


def first_error(validator, instance):
    errors = sorted(validator.iter_errors(instance), key=lambda e: (len(list(e.absolute_path)), str(e.message)))
    if not errors:
        return None
    error = jsonschema.exceptions.best_match(errors)
    where = "/".join(str(p) for p in error.absolute_path) or "(body)"
    return f"at {where}: {error.message[:400]}"


def request_id_problem(contract, record, headers):
    """Why the answer's X-Request-Id breaks the contract-wide rule, or None (a WebSocket upgrade is not an answer)."""
    if record.get("status") == 101:
        return None
    pattern = re.compile(contract.spec["components"]["headers"]["RequestId"]["schema"]["pattern"])
    answered = headers.get("x-request-id")
    if answered is None:
        return f"status {record.get('status')}: no X-Request-Id"
    if not pattern.fullmatch(answered):
        return f"status {record.get('status')}: X-Request-Id {answered[:140]!r} does not match {pattern.pattern}"
    sent = {k.lower(): v for k, v in (record.get("request_headers") or {}).items()}.get("x-request-id")
    if sent is not None and pattern.fullmatch(sent) and answered != sent:
        return f"status {record.get('status')}: X-Request-Id {answered!r}, but the request's own {sent!r} was plausible"
    return None


def check(contract, record, error_schema):
    """(operation label, problem or None)."""
    method = record.get("method", "").upper()
    path = record.get("path", "").split("?", 1)[0].split("#", 1)[0]
    status = record.get("status")
    headers = {k.lower(): v for k, v in (record.get("headers") or {}).items()}
    problem = request_id_problem(contract, record, headers)
    if problem:
        return f"(every answer) {method} {path}", problem
    matched = contract.match(path)

    def router_error(expected_status, expected_code, label):
        if status != expected_status:
            return label, f"status {status}: no documented operation (the router answers {expected_status} {expected_code} here)"
        body, why = response_body(record)
        if body is None:
            return label, why or "no body"
        problem = first_error(error_schema, body)
        if problem:
            return label, problem
        if body.get("error") != expected_code:
            return label, f"error {body.get('error')!r}, expected {expected_code!r}"
        if expected_status == 405 and "allow" not in headers:
            return label, "405 without an Allow header"
        return label, None

    if matched is None:
        return router_error(404, "not_found", f"(no path) {method} {path}")
    template, operations = matched
    operation = operations.get(method)
    if operation is None:
        return router_error(405, "method_not_allowed", f"(no method) {method} {template}")
    label = f"{method} {template} ({operation.get('operationId', '?')})"
    key, response = contract.response_for(operation, status)
    if response is None:
        return label, f"status {status} is not documented (documented: {', '.join(operation.get('responses', {}))})"
    response = contract.deref(response)

    for name, header in (response.get("headers") or {}).items():
        header = contract.deref(header)
        if header.get("required") and name.lower() not in headers:
            return label, f"status {status}: the required header {name} is missing"
    documented = {name.lower() for name in (response.get("headers") or {})}
    if "content-encoding" in headers and "content-encoding" not in documented:
        return label, f"status {status}: Content-Encoding {headers['content-encoding']!r} is not documented for this response"

    content = response.get("content") or {}
    size = record.get("body_size", 0)
    if not content:
        if size:
            return label, f"status {status}: a body of {size} bytes where none is documented"
        return label, None
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in {c.lower() for c in content} and status != 101:
        return label, f"status {status}: Content-Type {content_type!r}, documented {', '.join(content)}"
    media = content.get(content_type) or next(iter(content.values()))
    schema = media.get("schema")
    if schema is None:
        return label, None
    if not size:
        return label, f"status {status}: no body, documented {content_type}"
    if record.get("body_skipped"):
        return label, None  # over 1 MiB: status only
    body, why = response_body(record)
    if body is None:
        return label, f"status {status}: {why or 'no body recorded'}"
    problem = first_error(contract.validator(schema), body)
    if problem:
        return label, f"status {status}: {problem}"
    if operation.get("operationId") == "syncBatch" and isinstance(body, dict):
        # Each action's answer is its own endpoint's: at least every refusal is an Error body.
        for index, result in enumerate(body.get("results") or []):
            if isinstance(result, dict) and isinstance(result.get("status"), int) and result["status"] >= 400:
                problem = first_error(error_schema, result.get("body"))
                if problem:
                    return label, f"status {status}: results[{index}] ({result['status']}) {problem}"
    return label, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True, help="docs/openapi.yaml")
    parser.add_argument("--dir", required=True, help="the MARQUEE_RECORD_HTTP_DIR of the run")
    parser.add_argument("--require-records", action="store_true",
                        help="fail when nothing was recorded (a whole test run always records)")
    parser.add_argument("--ignore-prefix", action="append", default=[],
                        help="paths of other servers the tests talk to (the payment simulator's /v1/)")
    parser.add_argument("--max-examples", type=int, default=3, help="requests shown per distinct problem")
    args = parser.parse_args()

    with open(args.spec, encoding="utf-8") as file:
        spec = yaml.safe_load(file)
    contract = Contract(spec)
    error_schema = contract.validator({"$ref": "#/components/schemas/Error"})

    if not os.path.isdir(args.dir):
        print(f"validate_responses: {args.dir} does not exist: no test recorded an exchange (nothing to check)")
        return 1 if args.require_records else 0
    records, bad_lines = load_records(args.dir)
    ignored = 0
    checked = 0
    exercised = collections.Counter()
    problems = collections.OrderedDict()  # (label, problem) -> [records]
    for record in records:
        path = record.get("path", "")
        if any(path.startswith(prefix) for prefix in args.ignore_prefix):
            ignored += 1
            continue
        if not record.get("status"):
            continue
        checked += 1
        label, problem = check(contract, record, error_schema)
        exercised[(label, record.get("status"))] += 1
        if problem:
            problems.setdefault((label, problem), []).append(record)

    operations = []
    for template, item in spec.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                operations.append(f"{method.upper()} {template} ({item[method].get('operationId', '?')})")
    reached = {label for label, _ in exercised}
    unexercised = [op for op in operations if op not in reached]

    if args.require_records and checked == 0:
        print(f"validate_responses: nothing recorded under {args.dir}: is the recorder (MARQUEE_RECORD_HTTP_DIR) broken?",
              file=sys.stderr)
        return 1
    failed = sum(len(r) for r in problems.values())
    print(f"validate_responses: {checked} recorded responses checked against {len(operations)} documented operations"
          f" ({ignored} to other servers ignored, {bad_lines} unreadable lines skipped)")
    print(f"  {checked - failed} valid, {failed} invalid in {len(problems)} distinct problems;"
          f" {len(operations) - len(unexercised)} operations exercised")
    if unexercised:
        print(f"  not exercised by any test ({len(unexercised)}, information only):")
        for op in unexercised:
            print(f"    {op}")
    if problems:
        print("\nMISMATCHES (operation, status: first validation error; then the requests):", file=sys.stderr)
        for (label, problem), failing in problems.items():
            print(f"\n  {label}\n    {problem}\n    seen {len(failing)}×, e.g.:", file=sys.stderr)
            for record in failing[: args.max_examples]:
                print(f"      {describe_request(record)}", file=sys.stderr)
                body = record.get("body") or record.get("body_base64") or ""
                if body:
                    print(f"        → {record.get('status')} {body[:300]}{'…' if len(body) > 300 else ''}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
