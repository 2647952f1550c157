// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/isotime.h"

#include <QRandomGenerator>
#include <gtest/gtest.h>

using namespace marquee;

TEST(IsoTime, FromMillisecondsWritesWhatQtWritesForTheSameInstant)
{
    const auto same = [](qint64 ms) {
        EXPECT_EQ(toIsoUtcFromMs(ms).toStdString(), toIsoUtc(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC)).toStdString()) << ms;
    };
    // The edges: the epoch and just before it, leap days, the turn of centuries and of the 400-year cycle, the
    // last millisecond of a day, the first and last years written with four digits and beyond them.
    for (const char *iso : {"1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "2000-02-29T12:00:00.001Z", "1900-03-01T00:00:00.000Z",
                            "2100-02-28T23:59:59.999Z", "2024-02-29T23:59:59.999Z", "2026-12-31T23:59:59.999Z", "1600-01-01T00:00:00.000Z",
                            "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"}) {
        const QDateTime time = QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
        ASSERT_TRUE(time.isValid()) << iso;
        same(time.toMSecsSinceEpoch());
        EXPECT_EQ(toIsoUtcFromMs(time.toMSecsSinceEpoch()).toStdString(), iso);
    }
    same(QDateTime::fromString(QStringLiteral("0001-01-01T00:00:00.000Z"), Qt::ISODateWithMs).toMSecsSinceEpoch() - 1);
    same(QDateTime::fromString(QStringLiteral("9999-12-31T23:59:59.999Z"), Qt::ISODateWithMs).toMSecsSinceEpoch() + 1);
    // And 300,000 instants at random over the four-digit years.
    QRandomGenerator random(20261201);
    const qint64 first = QDateTime::fromString(QStringLiteral("0001-01-01T00:00:00.000Z"), Qt::ISODateWithMs).toMSecsSinceEpoch();
    const qint64 last = QDateTime::fromString(QStringLiteral("9999-12-31T23:59:59.999Z"), Qt::ISODateWithMs).toMSecsSinceEpoch();
    for (int i = 0; i < 300000; ++i) {
        const qint64 ms = first + qint64(random.bounded(quint64(last - first + 1)));
        if (toIsoUtcFromMs(ms) != toIsoUtc(QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC))) {
            same(ms);
            break;
        }
    }
}
