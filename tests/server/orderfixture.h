// SPDX-License-Identifier: AGPL-3.0-or-later
// A real server with a real marquee-paysim process and one show, plus the few calls every orders test makes
// (hold, order, confirm, and reading states back from the tables). Header-only; used by tst_orders*.cpp.
#pragma once

#include "paysimprocess.h"
#include "testserver.h"

#include <QJsonArray>
#include <gtest/gtest.h>

namespace marquee::test {

inline TestServer::Options paymentOptions()
{
    TestServer::Options options;
    options.threads = 2;
    options.paymentWebhookSecret = PaySimProcess::kSecret;
    return options;
}

struct OrderFixture {
    explicit OrderFixture(TestServer::Options options = paymentOptions(), PaySimProcess::Options simOptions = {})
        : server(options)
        , sim(server, simOptions)
    {
        showId = server.createShow(4, 6);
    }
    TestServer server;
    PaySimProcess sim;
    qint64 showId = 0;

    QString hold(HttpClient &client, const QStringList &seats)
    {
        const HttpResult r = client.post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                         QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
        EXPECT_EQ(r.status, 200) << r.body.toStdString();
        return r.json().value(QStringLiteral("hold_id")).toString();
    }
    HttpResult order(HttpClient &client, const QString &holdId, const QString &method = {})
    {
        QJsonObject body{{QStringLiteral("hold_id"), holdId}};
        if (!method.isEmpty())
            body.insert(QStringLiteral("payment_method"), method);
        return client.post("/api/v1/orders", body);
    }
    /** @brief An order by card that waits for its payment: its hold, its id and its payment intent. */
    struct OpenOrder {
        QString holdId;
        QString orderId;
        QString intentId;
    };
    /** @brief Hold @p seats and order them by card (the order is PENDING_PAYMENT). */
    OpenOrder openOrder(HttpClient &client, const QStringList &seats)
    {
        OpenOrder open;
        open.holdId = hold(client, seats);
        const HttpResult created = order(client, open.holdId);
        EXPECT_EQ(created.status, 201) << created.body.toStdString();
        open.orderId = created.json().value(QStringLiteral("order_id")).toString();
        open.intentId = created.json().value(QStringLiteral("payment_intent_id")).toString();
        return open;
    }
    HttpResult confirm(HttpClient &client, const OpenOrder &open) { return confirm(client, open.orderId, open.intentId); }
    HttpResult confirm(HttpClient &client, const QString &orderId, const QString &intentId)
    {
        return client.post("/api/v1/orders/" + orderId.toUtf8() + "/confirm", QJsonObject{{QStringLiteral("payment_intent_id"), intentId}});
    }
    QString orderState(const QString &orderId)
    {
        return server.scalar(QStringLiteral("SELECT state FROM orders WHERE order_id = '%1'").arg(orderId)).toString();
    }
    QString seatStatus(const QString &seat)
    {
        return server.scalar(QStringLiteral("SELECT status::text FROM show_seats WHERE show_id = %1 AND seat_id = '%2'").arg(showId).arg(seat)).toString();
    }
    qint64 count(const QString &sql) { return server.scalar(sql).toLongLong(); }
};

} // namespace marquee::test
