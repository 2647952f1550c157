// SPDX-License-Identifier: AGPL-3.0-or-later
// An answer as the wire tests (tst_holdwire, tst_orderwire, tst_waitingroom, tst_pairing) pin it. Header-only.
#pragma once

#include "httpclient.h"

#include <QByteArray>
#include <QRegularExpression>
#include <QString>
#include <string>
#include <utility>
#include <vector>

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

/** @brief A pattern of what a run decides (an id, a token, an instant) and the placeholder a pin writes for it. */
using WireMask = std::pair<QRegularExpression, QString>;

/** @brief @p result as a pin compares it: wireHead() then the body, each of @p masks replaced in order, first on the
 *  head (a Retry-After that counts down) and then on the body. */
inline std::string maskedWire(const HttpResult &result, const std::vector<WireMask> &masks)
{
    QString head = QString::fromUtf8(wireHead(result));
    QString body = QString::fromUtf8(result.body);
    for (const auto &[pattern, placeholder] : masks) {
        head.replace(pattern, placeholder);
        body.replace(pattern, placeholder);
    }
    return (head + body).toStdString();
}

} // namespace marquee::test
