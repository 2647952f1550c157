// SPDX-License-Identifier: AGPL-3.0-or-later
// The head of an answer as the wire tests (tst_holdwire, tst_orderwire) pin it. Header-only.
#pragma once

#include "httpclient.h"

#include <QByteArray>

namespace marquee::test {

/** @brief The status and the headers a client reads of @p result, a line each; the body follows it. */
inline QByteArray wireHead(const HttpResult &result)
{
    QByteArray out = QByteArray::number(result.status) + '\n';
    for (const char *name : {"Content-Type", "Retry-After", "WWW-Authenticate", "Allow", "ETag", "Location"}) {
        const QByteArray value = result.header(name);
        if (!value.isEmpty())
            out += QByteArray(name) + ": " + value + '\n';
    }
    return out;
}

} // namespace marquee::test
