#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
"""The server's layering, checked on every test run (docs/architecture.md explains it).

Fails when a folder of server/ includes a folder it may not, when SQL appears outside the repositories, when a
logging category is declared outside a library's logging header, or when headers include each other in a cycle.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..'))
SERVER = os.path.join(ROOT, 'server')

# Which folders each folder of server/ may include (besides itself, Qt and the standard library). Lower layers
# never include higher ones: core <- store <- use cases <- runtime <- http <- startup <- the executables.
ALLOWED = {
    'store': {'core'},
    'batching': {'core'},
    'protection': {'core'},
    'metrics': {'core'},
    'tickets': {'core', 'store'},
    'reports': {'core', 'store'},
    'devices': {'core', 'store'},
    'seating': {'core', 'store', 'batching'},
    'orders': {'core', 'store', 'batching'},
    'waitingroom': {'core', 'store', 'batching'},
    'holds': {'core', 'store', 'batching', 'seating', 'waitingroom'},
    'leases': {'core', 'store', 'orders'},
    'runtime': {'core', 'store', 'devices', 'batching', 'protection', 'tickets', 'reports', 'seating', 'orders', 'waitingroom',
                'holds', 'leases'},
    'jobs': {'core', 'store', 'orders', 'seating', 'tickets'},
    'http': {'core', 'store', 'devices', 'batching', 'metrics', 'protection', 'tickets', 'reports', 'seating', 'orders', 'waitingroom',
             'holds', 'leases', 'runtime'},
    'startup': {'core', 'store', 'devices', 'batching', 'metrics', 'protection', 'tickets', 'reports', 'seating', 'orders', 'waitingroom',
                'holds', 'leases', 'runtime', 'http', 'jobs'},
}
# The logging header of each library besides the server's (server/logging.h).
LIBRARY_LOGGING = {'core': 'core/corelogging.h', 'sync': 'sync/synclog.h', 'app': 'app/applogging.h'}
TOP_LEVEL = {'logging.h'}  # server/logging.h: anyone may include it
SQL_TYPES = re.compile(r'\bQSql(Query|Database)\b')
INCLUDE = re.compile(r'^\s*#include "([^"]+)"', re.M)


def sources(folder):
    for directory, _, names in os.walk(folder):
        if '/build' in directory:
            continue
        for name in names:
            if name.endswith(('.cpp', '.h')):
                yield os.path.join(directory, name)


def main():
    problems = []
    graph = {}
    for path in sources(SERVER):
        relative = os.path.relpath(path, SERVER)
        parts = relative.split(os.sep)
        if parts[0] == 'paysim':
            continue  # a separate program that links core only
        folder = parts[0] if len(parts) > 1 else None
        text = open(path, encoding='utf-8').read()
        includes = INCLUDE.findall(text)
        graph[relative] = set()
        for include in includes:
            target = include.split('/')[0] if '/' in include else None
            if include in TOP_LEVEL or target is None:
                if target is None and include not in TOP_LEVEL and not os.path.exists(os.path.join(os.path.dirname(path), include)):
                    problems.append(f'server/{relative}: #include "{include}" names no file beside it; write the folder')
                if include in TOP_LEVEL:
                    graph[relative].add(include)
                else:
                    graph[relative].add(os.path.normpath(os.path.join(os.path.dirname(relative), include)))
                continue
            graph[relative].add(include)
            if folder is None or target == folder:
                continue
            if target not in ALLOWED.get(folder, set()):
                problems.append(f'server/{relative}: {folder}/ may not include {target}/ ("{include}")')
        if SQL_TYPES.search(text) and folder != 'store':
            problems.append(f'server/{relative}: SQL outside server/store/ (QSqlQuery/QSqlDatabase)')
        if 'Q_DECLARE_LOGGING_CATEGORY' in text and relative != 'logging.h':
            problems.append(f'server/{relative}: declares a logging category by hand; include "logging.h"')

    # Cycles between headers (a .cpp including its own header is no cycle).
    headers = {name: {t for t in targets if t.endswith('.h') and t in graph} for name, targets in graph.items()
               if name.endswith('.h')}
    state = {}

    def visit(node, stack):
        state[node] = 'open'
        stack.append(node)
        for target in sorted(headers.get(node, ())):
            if state.get(target) == 'open':
                problems.append('include cycle: ' + ' -> '.join(stack[stack.index(target):] + [target]))
            elif target not in state:
                visit(target, stack)
        stack.pop()
        state[node] = 'done'

    for header in sorted(headers):
        if header not in state:
            visit(header, [])

    # The other libraries: each declares its categories in its own logging header only.
    for library, header in LIBRARY_LOGGING.items():
        allowed = {header, header[:-2] + '.cpp'}
        for path in sources(os.path.join(ROOT, library)):
            relative = os.path.relpath(path, ROOT)
            text = open(path, encoding='utf-8').read()
            if relative not in allowed and re.search(r'\bQ_(DECLARE_)?LOGGING_CATEGORY\(', text):
                problems.append(f'{relative}: declares a logging category by hand; add it to {header}')

    for folder in sorted(set(p.split(os.sep)[0] for p in graph if os.sep in p)):
        if folder not in ALLOWED:
            problems.append(f'server/{folder}/ is a folder the layering does not know: add it to ALLOWED and to docs/architecture.md')

    if problems:
        print('\n'.join(problems))
        print(f'{len(problems)} layering problems')
        return 1
    print(f'layering ok: {len(graph)} server files, {len(ALLOWED)} folders, no include cycle')
    return 0


if __name__ == '__main__':
    sys.exit(main())
