#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
"""The API's three descriptions agree, checked on every test run.

- the routes the server registers (router.add / router.addJson in server/http/*.cpp);
- the operations of the contract, docs/openapi.yaml;
- the `### METHOD /path` headings of the reference, docs/api.md.

Each set must equal the others, every code the server's error catalogue (core/errorcatalogue.cpp) can send must
be in the contract's ErrorCode enum, and every code of that enum must be explained somewhere in docs/api.md
(written as `code`). A mismatch fails with the list of what is missing where.
Needs python3-yaml (scripts/common.sh installs it).
"""
import glob
import os
import re
import sys

try:
    import yaml
except ImportError as error:  # pragma: no cover - an install problem, said plainly
    sys.exit(f"check_api_contract: {error}; install python3-yaml")

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..'))
METHODS = ('get', 'put', 'post', 'delete', 'patch')
ROUTE = re.compile(r'router\.add(?:Json)?\(\s*Method::(\w+)\s*,\s*QStringLiteral\("([^"]+)"\)')
# The live feed is a WebSocket upgrade that LiveHub accepts before the router sees the request: listed here, and
# checked to be still served where it is said to be.
WEBSOCKET_ROUTES = {('GET', '/api/v1/shows/{show_id}/live'): ('server/http/livehub.cpp', '/api/v1/shows/([^/]+)/live')}
HEADING = re.compile(r'^### (GET|PUT|POST|DELETE|PATCH) (/\S*)\s*$', re.M)
# An entry of the catalogue: {ErrorCode::Name, {status, "code", "message"}}.
CATALOGUE_ENTRY = re.compile(r'\{ErrorCode::\w+,\s*\{\s*\d+,\s*"([a-z_]+)"')


def catalogue_codes():
    with open(os.path.join(ROOT, 'core', 'errorcatalogue.cpp'), encoding='utf-8') as source:
        return set(CATALOGUE_ENTRY.findall(source.read()))


def registered_routes():
    routes = set()
    for path in sorted(glob.glob(os.path.join(ROOT, 'server', 'http', '*.cpp'))):
        with open(path, encoding='utf-8') as source:
            for method, route in ROUTE.findall(source.read()):
                routes.add((method.upper(), route))
    for route, (source_path, pattern) in WEBSOCKET_ROUTES.items():
        with open(os.path.join(ROOT, source_path), encoding='utf-8') as source:
            if pattern in source.read():
                routes.add(route)
    return routes


def contract():
    with open(os.path.join(ROOT, 'docs', 'openapi.yaml'), encoding='utf-8') as spec_file:
        spec = yaml.safe_load(spec_file)
    operations = set()
    for path, item in spec.get('paths', {}).items():
        for method in METHODS:
            if method in item:
                operations.add((method.upper(), path))
    codes = spec['components']['schemas']['ErrorCode']['enum']
    return operations, codes


def reference():
    with open(os.path.join(ROOT, 'docs', 'api.md'), encoding='utf-8') as doc:
        text = doc.read()
    return set(HEADING.findall(text)), text


def show(pairs):
    return '\n'.join(f'    {method} {path}' for method, path in sorted(pairs, key=lambda p: (p[1], p[0])))


def main():
    routes = registered_routes()
    operations, codes = contract()
    headings, text = reference()
    problems = []
    if not routes:
        problems.append('no route found in server/http/*.cpp: has the registration call changed? (update ROUTE)')
    for missing, where, found_in in ((routes - operations, 'docs/openapi.yaml', 'the server registers'),
                                     (operations - routes, 'the server', 'docs/openapi.yaml documents'),
                                     (operations - headings, 'docs/api.md (as "### METHOD /path")', 'docs/openapi.yaml has'),
                                     (headings - operations, 'docs/openapi.yaml', 'docs/api.md documents')):
        if missing:
            problems.append(f'{found_in} these, missing in {where}:\n{show(missing)}')
    catalogue = catalogue_codes()
    if not catalogue:
        problems.append('no entry found in core/errorcatalogue.cpp: has its shape changed? (update CATALOGUE_ENTRY)')
    undeclared = sorted(catalogue - set(codes))
    if undeclared:
        problems.append("codes the server's error catalogue sends that the contract's ErrorCode enum lacks "
                        '(a response carrying one fails openapi_responses):\n' + '\n'.join(f'    {code}' for code in undeclared))
    unexplained = [code for code in codes if f'`{code}`' not in text]
    if unexplained:
        problems.append('error codes of the ErrorCode catalogue that docs/api.md never explains:\n'
                        + '\n'.join(f'    {code}' for code in unexplained))
    if problems:
        print('check_api_contract: the API descriptions disagree\n' + '\n'.join(problems))
        return 1
    print(f'check_api_contract: {len(routes)} routes, {len(operations)} operations, {len(headings)} headings agree; '
          f'{len(codes)} error codes explained, the catalogue\'s {len(catalogue)} among them')
    return 0


if __name__ == '__main__':
    sys.exit(main())
