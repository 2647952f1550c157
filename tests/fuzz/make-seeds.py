#!/usr/bin/env python3
# SPDX-License-Identifier: AGPL-3.0-or-later
"""Writes the seed corpora under tests/fuzz/corpus/<target>/: small, realistic inputs of each parser.

Run it again after a wire format changes (the seeds are committed; libFuzzer grows its own corpus in build/fuzz).
The QR seeds are signed with the fuzz key (private seed 0x01..0x20, key id 7) exactly as TicketCodec signs;
tests/unit/tst_ticketcodec.cpp checks that the codec produces corpus/fuzz_ticketcodec/valid byte for byte.
"""
import hashlib
import hmac
import json
import os
import re
import struct
import sys
import uuid

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
CORPUS = os.path.join(HERE, 'corpus')
FUZZ_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
WEBHOOK_SECRET = b'whsec-fuzz'


def b64url(data):
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b'=').decode()


def qr(key_id, ticket, show, seat, valid_from, valid_until, key=FUZZ_KEY):
    seat_bytes = seat.encode()
    payload = (bytes([1]) + struct.pack('>I', key_id) + uuid.UUID(ticket).bytes + struct.pack('>q', show)
               + bytes([len(seat_bytes)]) + seat_bytes + struct.pack('>qq', valid_from, valid_until))
    return 'MQ1.' + b64url(payload) + '.' + b64url(key.sign(payload)), payload


DEVICE_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34)))
DELEGATION_ID = '0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6'


def delegated_qr(delegation, ticket, show, seat, valid_from, valid_until, key=DEVICE_KEY):
    seat_bytes = seat.encode()
    payload = (bytes([2]) + uuid.UUID(delegation).bytes + uuid.UUID(ticket).bytes + struct.pack('>q', show)
               + bytes([len(seat_bytes)]) + seat_bytes + struct.pack('>qq', valid_from, valid_until))
    return 'MQ2.' + b64url(payload) + '.' + b64url(key.sign(payload))


def delegation(key_id, delegation_id, lease_id, device, show, device_key, seats, valid_from, valid_until, sell_until):
    """The canonical bytes a venue key signs for a delegation (docs/tickets.md, "Delegations")."""
    out = (b'MQD1' + struct.pack('>I', key_id) + uuid.UUID(delegation_id).bytes + uuid.UUID(lease_id).bytes
           + struct.pack('>qq', device, show) + device_key + struct.pack('>qqq', valid_from, valid_until, sell_until)
           + struct.pack('>H', len(seats)))
    for seat in sorted(seats, key=lambda s: s.encode()):
        out += bytes([len(seat.encode())]) + seat.encode()
    return out


def delegation_json():
    """A delegation as GET /api/v1/delegations writes it, signed by the fuzz key (venue key id 7)."""
    import base64
    from datetime import datetime, timezone
    device_key = DEVICE_KEY.public_key().public_bytes_raw()
    signed = delegation(7, DELEGATION_ID, 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', 3, 12, device_key, ['H15', 'H16', 'H17'],
                        1777660200, 1777671000, 1777664400)

    def iso(seconds):
        return datetime.fromtimestamp(seconds, timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000Z')
    return compact({'delegation_id': DELEGATION_ID, 'lease_id': 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', 'device_id': 3,
                    'show_id': 12, 'device_public_key': base64.b64encode(device_key).decode(),
                    'seat_ids': ['H15', 'H16', 'H17'], 'valid_from': iso(1777660200), 'valid_until': iso(1777671000),
                    'sell_until': iso(1777664400), 'key_id': 7,
                    'signature': base64.b64encode(FUZZ_KEY.sign(signed)).decode(), 'state': 'active',
                    'revoked_at': None, 'ticket_ids': []})


def compact(value):
    return json.dumps(value, separators=(',', ':'), ensure_ascii=False).encode()


def main():
    seeds = {}
    valid_qr, payload = qr(7, '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b', 12, 'H14', 1777660200, 1777671000)
    other_key_qr, _ = qr(8, '0b7e4a1c-2d3f-4a5b-9c8d-7e6f5a4b3c2d', 12, 'H15', 1777660200, 1777671000,
                         Ed25519PrivateKey.from_private_bytes(bytes(range(2, 34))))
    long_seat_qr, _ = qr(7, '11111111-2222-4333-8444-555555555555', 9007199254740993, 'Balcony-Row-K-Seat-12-ß',
                         0, 1)
    seeds['fuzz_ticketcodec'] = {
        'valid': valid_qr.encode(), 'unknown-key': other_key_qr.encode(), 'long-seat': long_seat_qr.encode(),
        'payload': payload, 'tampered': valid_qr.replace('.', '.A', 1).encode(),
        'delegated': delegated_qr(DELEGATION_ID, '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d', 12, 'H16', 1777660200,
                                  1777671000).encode(),
        'delegation': delegation(7, DELEGATION_ID, 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', 3, 12,
                                 DEVICE_KEY.public_key().public_bytes_raw(), ['H16', 'H15', 'H17'],
                                 1777660200, 1777671000, 1777664400),
        'delegation-json': delegation_json(),
    }

    hold = {'seat_ids': ['H14', 'H15']}
    seeds['fuzz_holdrequest'] = {
        'two-seats': compact(hold), 'one-seat': b'{"seat_ids": ["A1"]}\n',
        'eleven-seats': compact({'seat_ids': [f'K{i}' for i in range(1, 12)]}),
        'duplicate': b'{"seat_ids":["H14","H14"]}', 'not-strings': b'{"seat_ids":["H14",7,null]}',
        'unicode': compact({'seat_ids': ['Parkett-Ä1', '\u00e9\u0301', '\U0001f3ad']}),
    }
    seeds['fuzz_orderrequest'] = {
        'card': b'{"hold_id":"5b0c9d1e-8f7a-4b6c-9d2e-3f4a5b6c7d8e"}',
        'cash': compact({'hold_id': '5b0c9d1e-8f7a-4b6c-9d2e-3f4a5b6c7d8e', 'payment_method': 'cash',
                         'tendered_minor': 5000, 'customer_email': ' Ana.Lima@Example.ORG ',
                         'customer_phone': '+44 (20) 7946-0958'}),
        'split': compact({'hold_id': '5b0c9d1e-8f7a-4b6c-9d2e-3f4a5b6c7d8e', 'payment_method': 'split',
                          'cash_minor': 1500, 'tendered_minor': 2000}),
        'bad-amount': b'{"hold_id":"h","payment_method":"cash","tendered_minor":1.5e300}',
    }
    checkin = {'qr': valid_qr, 'nonce': 'scan-7f3a', 'scanned_at': '2026-05-01T19:30:00Z', 'show_id': 12}
    seeds['fuzz_checkinrequest'] = {
        'scan': compact(checkin),
        'offset': compact(dict(checkin, scanned_at='2026-05-01T21:30:00.250+02:00', show_id=None)),
        'future': compact(dict(checkin, scanned_at='2999-01-01T00:00:00Z')),
        'no-offset': compact(dict(checkin, scanned_at='2026-05-01T19:30:00')),
    }
    seeds['fuzz_syncbatch'] = {
        'mixed': compact({'actions': [
            {'kind': 'hold', 'idempotency_key': 'k-1', 'payload': {'show_id': 12, 'seat_ids': ['H14'], 'admission_token': 'adm'}},
            {'kind': 'checkin', 'idempotency_key': 'scan-7f3a', 'payload': checkin},
            {'kind': 'confirm_order', 'idempotency_key': 'pi_123', 'payload': {'order_id': 'o-1', 'payment_intent_id': 'pi_123'}},
        ]}),
        'key-mismatch': compact({'actions': [{'kind': 'checkin', 'idempotency_key': 'other', 'payload': checkin}]}),
        'unknown-kind': b'{"actions":[{"kind":"refund","idempotency_key":"k","payload":{}}]}',
        'empty': b'{"actions":[]}',
    }
    seeds['fuzz_jsonbody'] = {name: body for target in ('fuzz_holdrequest', 'fuzz_orderrequest', 'fuzz_syncbatch')
                              for name, body in seeds[target].items()}
    seeds['fuzz_jsonbody'].update({'numbers': b'{"a":9007199254740993,"b":-0.0,"c":1e308,"d":[1,2,3],"e":"\\ud800"}',
                                   'array': b'[1,2]', 'truncated': b'{"seat_ids":["H1'})

    def signed(body, good=True):
        digest = hmac.new(WEBHOOK_SECRET, body, hashlib.sha256).hexdigest()
        return (b'sha256=' + (digest if good else digest[::-1]).encode() + b'\n' + body)
    event = {'event_id': 'evt_0001', 'type': 'payment_intent.succeeded', 'payment_intent_id': 'pi_123',
             'amount_minor': 2400, 'currency': 'EUR'}
    seeds['fuzz_webhook'] = {
        'succeeded': signed(compact(event)), 'refunded': signed(compact(dict(event, type='charge.refunded'))),
        'bad-signature': signed(compact(event), good=False), 'unknown-type': signed(compact(dict(event, type='x'))),
    }

    shipped = open(os.path.join(ROOT, 'installer', 'marquee-server', 'server.conf'), 'rb').read()
    uncommented = re.sub(rb'(?m)^#([a-z][a-z0-9-]* = )', rb'\1', shipped)
    seeds['fuzz_serverconfig'] = {
        'server-conf': shipped, 'server-conf-uncommented': uncommented,
        'small': b'listen = [::1]:8443\nhold-ttl = 600\nfast-refusals = off\nlog-format = json\n'
                 b'event-webhook = https://hooks.example.org/marquee\n',
        'bad-line': b'threads 4\n', 'crlf': b'threads = 8\r\nlisten = localhost:9000\r\n',
    }

    requests = {
        'get': b'GET /api/v1/shows/12/seats HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer tok\r\n\r\n',
        'post': b'POST /api/v1/shows/12/hold HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
                b'Idempotency-Key: k-1\r\nContent-Length: 25\r\n\r\n{"seat_ids":["H14","H1"]}',
        'chunked': b'POST /api/v1/sync/batch HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n'
                   b'5\r\n{"act\r\n9;ext=1\r\nions":[]}\r\n0\r\nX-Trailer: yes\r\n\r\n',
        'pipelined': b'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.0\r\n\r\n',
        'websocket': b'GET /api/v1/shows/12/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n'
                     b'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n\x81\x05hello',
        'smuggle': b'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        'bare-lf': b'GET / HTTP/1.1\nHost: x\n\n',
    }
    # The first byte chooses the read size and the limits (fuzz_requestframer.cpp).
    seeds['fuzz_requestframer'] = {f'{name}-{mode:02x}': bytes([mode]) + body
                                   for name, body in requests.items() for mode in (0x05, 0x83)}

    for target, files in seeds.items():
        folder = os.path.join(CORPUS, target)
        os.makedirs(folder, exist_ok=True)  # inputs a fuzzer found (a bug's regression) stay beside these
        for name, content in files.items():
            with open(os.path.join(folder, name), 'wb') as out:
                out.write(content)
    print(f'wrote {sum(len(f) for f in seeds.values())} seeds for {len(seeds)} targets under {CORPUS}')


if __name__ == '__main__':
    sys.exit(main())
