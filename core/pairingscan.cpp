// SPDX-License-Identifier: AGPL-3.0-or-later
#include "pairingscan.h"

#include <QStringList>

namespace marquee {

namespace {
const QString kPrefix = QStringLiteral("MQPAIR1");
} // namespace

QString pairingScanText(const QString &code, const QString &fingerprint)
{
    return fingerprint.isEmpty() ? kPrefix + QLatin1Char('/') + code : kPrefix + QLatin1Char('/') + code + QLatin1Char('/') + fingerprint;
}

std::optional<PairingScan> parsePairingScan(const QString &text)
{
    const QStringList parts = text.trimmed().split(QLatin1Char('/'));
    if (parts.size() < 2 || parts.size() > 3 || parts.first().compare(kPrefix, Qt::CaseInsensitive) != 0 || parts.at(1).isEmpty())
        return std::nullopt;
    return PairingScan{parts.at(1), parts.size() == 3 ? parts.at(2) : QString()};
}

} // namespace marquee
