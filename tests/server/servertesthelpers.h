// SPDX-License-Identifier: AGPL-3.0-or-later
// Small helpers shared by the server integration tests (tst_api, tst_holds, tst_concurrency, tst_crash).
#pragma once

#include "testserver.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <gtest/gtest.h>
#include <ostream>

namespace marquee::test {

/** @brief Run the event loop (sockets read, signals arrive) until @p condition holds or @p ms pass. */
inline bool pumpUntil(const std::function<bool()> &condition, int ms = 10000)
{
    QElapsedTimer timer;
    timer.start();
    while (!condition() && timer.elapsed() < ms) {
        QEventLoop loop;
        QTimer::singleShot(5, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return condition();
}

/**
 * @brief A fingerprint of every table a request could write to. Comparing it before and after a rejected
 * request proves that the request changed nothing (rule 6).
 */
inline QString databaseState(TestServer &server)
{
    return server
        .scalar(QStringLiteral(
            "SELECT concat_ws('/', (SELECT count(*) FROM holds), (SELECT count(*) FROM holds WHERE released_at IS NOT NULL), "
            "  (SELECT count(*) FROM show_seats WHERE status <> 'available'), (SELECT coalesce(sum(version), 0) FROM show_seats), "
            "  (SELECT count(*) FROM idempotency_keys), (SELECT count(*) FROM outbox), "
            "  (SELECT count(*) FROM sessions), (SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL))"))
        .toString();
}

/** @brief {seat_id: status} of a show as the seat map reports it (empty on a non-200 answer). */
inline QMap<QString, QString> seatStatuses(HttpClient &client, qint64 showId)
{
    QMap<QString, QString> statuses;
    const HttpResult map = client.get("/api/v1/shows/" + QByteArray::number(showId) + "/seatmap");
    if (map.status != 200)
        return statuses;
    for (const QJsonValue &seat : map.json().value(QStringLiteral("seats")).toArray())
        statuses.insert(seat[QStringLiteral("seat_id")].toString(), seat[QStringLiteral("status")].toString());
    return statuses;
}

inline QByteArray holdPath(qint64 showId)
{
    return "/api/v1/shows/" + QByteArray::number(showId) + "/hold";
}

inline QJsonObject seatsBody(const QStringList &seats)
{
    return QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}};
}

inline QStringList stringList(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &item : value.toArray())
        list << item.toString();
    return list;
}

/** @brief Number of seats of @p showId in @p status according to the table itself. */
inline int seatsInStatus(TestServer &server, qint64 showId, const char *status)
{
    return server
        .scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = '%2'").arg(showId).arg(QLatin1String(status)))
        .toInt();
}

} // namespace marquee::test

/** @brief Readable QStrings in gtest failure messages (found by argument-dependent lookup). */
inline void PrintTo(const QString &text, std::ostream *os)
{
    *os << '"' << text.toStdString() << '"';
}

/** @brief Assert that an answer is a JSON error with this status and stable code. */
#define EXPECT_API_ERROR(result, expectedStatus, expectedCode)                                                                      \
    do {                                                                                                                            \
        const ::marquee::test::HttpResult &r_ = (result);                                                                           \
        EXPECT_EQ(r_.status, (expectedStatus)) << r_.body.constData();                                                              \
        EXPECT_EQ(r_.json().value(QStringLiteral("error")).toString().toStdString(), std::string(expectedCode)) << r_.body.constData(); \
        EXPECT_FALSE(r_.json().value(QStringLiteral("message")).toString().isEmpty()) << r_.body.constData();                      \
    } while (0)
