// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "appconfig.h"
#include "core/role.h"
#include "screenshots.h"
#include "testserver.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QJsonArray>
#include <QTest>
#include <functional>
#include <gtest/gtest.h>

namespace marquee::test {

inline const QString kStaffPassword = QStringLiteral("correct horse battery");

/** @brief Spin the event loop until @p done or @p ms pass; true when done. */
inline bool waitFor(const std::function<bool()> &done, int ms = 10000)
{
    QDeadlineTimer deadline(ms);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QTest::qWait(20);
    }
    return true;
}

/** @brief A staff member @p name with @p role and kStaffPassword. */
inline void addStaff(TestServer &server, const QString &name, const QString &role)
{
    QString error;
    if (!server.context().auth.addStaff(name, *roleFromString(role), kStaffPassword, &error))
        ADD_FAILURE() << "cannot add staff: " << qPrintable(error);
}

inline app::AppConfig staffConfig(TestServer &server, const QString &role, const QString &printDir)
{
    app::AppConfig config;
    config.role = role;
    config.language = screenshotLanguage(); // German in the screenshot suites' German runs
    config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port()));
    config.printDir = printDir;
    config.journalPath = printDir + QStringLiteral("/till.db"); // a till's journal of its own, never the user's
    config.seatMapPollMs = 0;
    config.requestTimeoutMs = 8000;
    return config;
}

/**
 * @brief Sell @p seats of @p showId for cash through the API with @p token (@p extra: more order fields, such as
 * customer_email); the booking as confirmed.
 */
inline QJsonObject sellForCash(TestServer &server, const QString &token, qint64 showId, const QStringList &seats, const QJsonObject &extra = {})
{
    auto client = server.client(token);
    const HttpResult hold = client->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                         QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
    if (hold.status != 200) {
        ADD_FAILURE() << "hold: " << hold.body.constData();
        return {};
    }
    QJsonObject body = extra;
    body.insert(QStringLiteral("hold_id"), hold.json()[QStringLiteral("hold_id")]);
    body.insert(QStringLiteral("payment_method"), QStringLiteral("cash"));
    const HttpResult order = client->post("/api/v1/orders", body);
    if (order.status != 201) {
        ADD_FAILURE() << "order: " << order.body.constData();
        return {};
    }
    const HttpResult confirm = client->post("/api/v1/orders/" + order.json()[QStringLiteral("order_id")].toString().toLatin1() + "/confirm",
                                            QJsonObject{{QStringLiteral("payment_intent_id"), order.json()[QStringLiteral("payment_intent_id")]}});
    if (confirm.status != 200)
        ADD_FAILURE() << "confirm: " << confirm.body.constData();
    return confirm.json();
}

} // namespace marquee::test
