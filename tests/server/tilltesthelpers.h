// SPDX-License-Identifier: AGPL-3.0-or-later
// A till with a card provider, shared by the till and report tests (tst_till, tst_reports).
#pragma once

#include "paysimprocess.h"
#include "servertesthelpers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <limits>

namespace marquee::test {


inline constexpr qint64 kStandard = 1250; // TestServer::createShow prices: rows before the last two are standard
inline constexpr qint64 kPremium = 1800;

struct Till {
    Till()
        : server([] {
            TestServer::Options options;
            options.threads = 2;
            options.paymentWebhookSecret = PaySimProcess::kSecret;
            return options;
        }())
        , sim(server, {})
    {
        showId = server.createShow(4, 6); // rows A, B standard; C, D premium
    }
    TestServer server;
    PaySimProcess sim;
    qint64 showId = 0;

    QString hold(HttpClient &client, const QStringList &seats, qint64 show = 0)
    {
        const HttpResult r = client.post(holdPath(show ? show : showId), seatsBody(seats));
        EXPECT_EQ(r.status, 200) << r.body.toStdString();
        return r.json().value(QStringLiteral("hold_id")).toString();
    }
    HttpResult order(HttpClient &client, const QString &holdId, const QJsonObject &payment)
    {
        QJsonObject body = payment;
        body.insert(QStringLiteral("hold_id"), holdId);
        return client.post("/api/v1/orders", body);
    }
    HttpResult confirm(HttpClient &client, const QJsonObject &order)
    {
        return client.post("/api/v1/orders/" + order.value(QStringLiteral("order_id")).toString().toUtf8() + "/confirm",
                           QJsonObject{{QStringLiteral("payment_intent_id"), order.value(QStringLiteral("payment_intent_id")).toString()}});
    }
    /** @brief Sell for cash with @p tendered handed over; returns the confirmed booking. */
    QJsonObject sellCash(HttpClient &client, const QStringList &seats, qint64 tendered, qint64 show = 0)
    {
        const HttpResult created = order(client, hold(client, seats, show),
                                         {{QStringLiteral("payment_method"), QStringLiteral("cash")}, {QStringLiteral("tendered_minor"), tendered}});
        EXPECT_EQ(created.status, 201) << created.body.toStdString();
        const HttpResult confirmed = confirm(client, created.json());
        EXPECT_EQ(confirmed.status, 200) << confirmed.body.toStdString();
        return confirmed.json();
    }
    /** @brief Sell by card (the terminal pays with @p token); returns the confirm answer. */
    HttpResult sellCard(HttpClient &client, const QStringList &seats, const QString &token = QStringLiteral("tok_visa"))
    {
        const HttpResult created = order(client, hold(client, seats), {{QStringLiteral("payment_method"), QStringLiteral("card")}});
        EXPECT_EQ(created.status, 201) << created.body.toStdString();
        EXPECT_EQ(sim.pay(created.json().value(QStringLiteral("payment_intent_id")).toString(), token).status, 200);
        return confirm(client, created.json());
    }
    HttpResult openShift(HttpClient &client, qint64 openingFloat)
    {
        return client.post("/api/v1/shifts", QJsonObject{{QStringLiteral("opening_float_minor"), openingFloat}, {QStringLiteral("currency"), QStringLiteral("EUR")}});
    }
    static constexpr qint64 kNoAmount = std::numeric_limits<qint64>::min(); ///< drawer(): leave amount_minor out
    HttpResult drawer(HttpClient &client, const QString &kind, qint64 amount, const QString &reason = QStringLiteral("float top-up"))
    {
        QJsonObject body{{QStringLiteral("kind"), kind}, {QStringLiteral("reason"), reason}};
        if (amount != kNoAmount)
            body.insert(QStringLiteral("amount_minor"), amount);
        return client.post("/api/v1/shifts/current/drawer", body);
    }
    HttpResult reauth(HttpClient &client, const QString &field, const QString &secret)
    {
        return client.post("/api/v1/sessions/reauth", QJsonObject{{field, secret}});
    }
    qint64 count(const QString &sql) { return server.scalar(sql).toLongLong(); }
};

inline QString password()
{
    return QString::fromLatin1(TestServer::kStaffPassword);
}

inline qint64 field(const QJsonObject &object, const char *path)
{
    QJsonValue value = object;
    for (const QString &part : QString::fromLatin1(path).split(QLatin1Char('.')))
        value = value.toObject().value(part);
    return value.toInteger(-999999);
}

} // namespace marquee::test
