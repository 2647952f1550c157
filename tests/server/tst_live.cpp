// SPDX-License-Identifier: AGPL-3.0-or-later
// Live seat-map deltas over WebSocket (issue 6 §3): real QWebSocket clients over loopback against a real
// in-process server and PostgreSQL. A snapshot, then the deltas of holds, releases and a cash sale; resume after a
// reconnect; and clear errors for bad shows, versions, paths and tokens.
#include "servertesthelpers.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkRequest>
#include <QTimer>
#include <QUrlQuery>
#include <QWebSocket>
#include <functional>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

/** @brief A WebSocket subscriber that records every message and keeps the statuses it was told. */
class LiveClient
{
public:
    LiveClient(quint16 port, const QByteArray &pathAndQuery, const QString &token)
    {
        QObject::connect(&m_socket, &QWebSocket::textMessageReceived, [this](const QString &text) {
            const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
            m_messages.push_back(message);
            apply(message);
        });
        QObject::connect(&m_socket, &QWebSocket::disconnected, [this] {
            m_closed = true;
            m_closeCode = m_socket.closeCode();
        });
        QNetworkRequest request(QUrl(QStringLiteral("ws://127.0.0.1:%1").arg(port) + QString::fromLatin1(pathAndQuery)));
        if (!token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + token.toLatin1());
        m_socket.open(request);
    }

    /** @brief Run the event loop until @p condition holds or @p ms pass. */
    bool waitFor(const std::function<bool()> &condition, int ms = 10000)
    {
        QElapsedTimer timer;
        timer.start();
        while (!condition() && timer.elapsed() < ms) {
            QEventLoop loop;
            QTimer::singleShot(10, &loop, &QEventLoop::quit);
            loop.exec();
        }
        return condition();
    }
    bool waitForStatus(const QString &seat, const QString &status) { return waitFor([&] { return m_status.value(seat) == status; }); }

    const std::vector<QJsonObject> &messages() const { return m_messages; }
    QString status(const QString &seat) const { return m_status.value(seat); }
    qint64 version() const { return m_version; }
    QString epoch() const { return m_epoch; }
    bool closed() const { return m_closed; }
    int closeCode() const { return m_closeCode; }
    /** @brief Versions of the deltas received, in order. */
    const std::vector<qint64> &deltaVersions() const { return m_deltaVersions; }
    void setSeatOrder(const QStringList &seats) { m_seatOrder = seats; }
    QMap<QString, QString> statuses() const { return m_status; }
    void close() { m_socket.close(); }

private:
    void apply(const QJsonObject &message)
    {
        const QString type = message.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("snapshot")) {
            m_epoch = message.value(QStringLiteral("epoch")).toString();
            m_version = message.value(QStringLiteral("version")).toInteger();
            const QString letters = message.value(QStringLiteral("statuses")).toString();
            for (int i = 0; i < letters.size() && i < m_seatOrder.size(); ++i)
                m_status[m_seatOrder[i]] = letters[i] == u'h' ? QStringLiteral("held") : letters[i] == u'b' ? QStringLiteral("booked") : QStringLiteral("available");
        } else if (type == QLatin1String("resumed")) {
            m_epoch = message.value(QStringLiteral("epoch")).toString();
            m_version = message.value(QStringLiteral("from_version")).toInteger();
        } else if (type == QLatin1String("delta")) {
            m_version = message.value(QStringLiteral("version")).toInteger();
            m_deltaVersions.push_back(m_version);
            for (const QJsonValue &change : message.value(QStringLiteral("changes")).toArray())
                m_status[change[QStringLiteral("seat_id")].toString()] = change[QStringLiteral("status")].toString();
        }
    }

    QWebSocket m_socket;
    std::vector<QJsonObject> m_messages;
    QMap<QString, QString> m_status;
    QStringList m_seatOrder;
    std::vector<qint64> m_deltaVersions;
    qint64 m_version = -1;
    QString m_epoch;
    bool m_closed = false;
    int m_closeCode = 0;
};

QByteArray livePath(qint64 showId, const QByteArray &query = {})
{
    return "/api/v1/shows/" + QByteArray::number(showId) + "/live" + (query.isEmpty() ? QByteArray() : "?" + query);
}

/** @brief The seat ids of a show in the seat map's order, the order of a snapshot's statuses. */
QStringList seatOrder(HttpClient &client, qint64 showId)
{
    QStringList seats;
    const HttpResult map = client.get("/api/v1/shows/" + QByteArray::number(showId) + "/seatmap");
    for (const QJsonValue &seat : map.json().value(QStringLiteral("seats")).toArray())
        seats << seat[QStringLiteral("seat_id")].toString();
    return seats;
}

/** @brief Every delta version follows the one before it by exactly one. */
bool consecutive(const std::vector<qint64> &versions, qint64 after)
{
    for (const qint64 version : versions) {
        if (version != after + 1)
            return false;
        after = version;
    }
    return true;
}

} // namespace

TEST(Live, SnapshotThenDeltasOfHoldsReleasesAndSales)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 10);
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);
    auto cashier = server.client(server.staffToken(QStringLiteral("cashier")));
    const QStringList order = seatOrder(*kiosk, showId);
    ASSERT_EQ(order.size(), 20);

    LiveClient live(server.port(), livePath(showId), token);
    live.setSeatOrder(order);
    ASSERT_TRUE(live.waitFor([&] { return !live.messages().empty(); })) << "no first message";
    const QJsonObject snapshot = live.messages().front();
    EXPECT_EQ(snapshot.value(QStringLiteral("type")).toString(), QStringLiteral("snapshot"));
    EXPECT_EQ(snapshot.value(QStringLiteral("show_id")).toInteger(), showId);
    EXPECT_EQ(snapshot.value(QStringLiteral("seat_count")).toInt(), 20);
    EXPECT_EQ(snapshot.value(QStringLiteral("statuses")).toString(), QString(20, u'a'));
    EXPECT_FALSE(snapshot.value(QStringLiteral("epoch")).toString().isEmpty());
    const qint64 first = snapshot.value(QStringLiteral("version")).toInteger();
    EXPECT_GE(first, 1);

    // A hold: both seats turn held (one transaction, so one delta names both).
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}));
    ASSERT_EQ(held.status, 200) << held.body.constData();
    ASSERT_TRUE(live.waitFor([&] { return live.status(QStringLiteral("A1")) == QLatin1String("held") && live.status(QStringLiteral("A2")) == QLatin1String("held"); }));
    EXPECT_EQ(live.status(QStringLiteral("A3")), QStringLiteral("available"));

    // A release: back to available.
    ASSERT_EQ(kiosk->del("/api/v1/holds/" + held.json()[QStringLiteral("hold_id")].toString().toLatin1()).status, 200);
    ASSERT_TRUE(live.waitFor([&] { return live.status(QStringLiteral("A1")) == QLatin1String("available") && live.status(QStringLiteral("A2")) == QLatin1String("available"); }));

    // A cash sale at the box office: held, then booked.
    const HttpResult sold = cashier->post(holdPath(showId), seatsBody({QStringLiteral("B5")}));
    ASSERT_EQ(sold.status, 200) << sold.body.constData();
    const HttpResult created = cashier->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), sold.json()[QStringLiteral("hold_id")]},
                                                                            {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    ASSERT_EQ(created.status, 201) << created.body.constData();
    const HttpResult confirmed = cashier->post("/api/v1/orders/" + created.json()[QStringLiteral("order_id")].toString().toUtf8() + "/confirm",
                                               QJsonObject{{QStringLiteral("payment_intent_id"), created.json()[QStringLiteral("payment_intent_id")]}});
    ASSERT_EQ(confirmed.status, 200) << confirmed.body.constData();
    ASSERT_TRUE(live.waitForStatus(QStringLiteral("B5"), QStringLiteral("booked")));

    // Versions go up by one per delta, and what the client pieced together is what the seat map says.
    EXPECT_TRUE(consecutive(live.deltaVersions(), first));
    EXPECT_GE(live.deltaVersions().size(), 3u);
    EXPECT_TRUE(live.waitFor([&] { return live.statuses() == seatStatuses(*kiosk, showId); }));
    EXPECT_FALSE(live.closed());
}

TEST(Live, ResumeAfterReconnectSendsWhatWasMissed)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 10);
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);
    const QStringList order = seatOrder(*kiosk, showId);

    QString epoch;
    qint64 seen = 0;
    QMap<QString, QString> before;
    {
        LiveClient live(server.port(), livePath(showId), token);
        live.setSeatOrder(order);
        ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")})).status, 200);
        ASSERT_TRUE(live.waitForStatus(QStringLiteral("A1"), QStringLiteral("held")));
        epoch = live.epoch();
        seen = live.version();
        before = live.statuses();
        live.close();
    }
    // Changes while the client is away.
    ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B1"), QStringLiteral("B2")})).status, 200);
    ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A7")})).status, 200);
    // Wait until the server's feed has them (a fresh subscriber sees them), so the resume has something to send.
    {
        LiveClient probe(server.port(), livePath(showId), token);
        probe.setSeatOrder(order);
        ASSERT_TRUE(probe.waitFor([&] { return probe.status(QStringLiteral("A7")) == QLatin1String("held") && probe.status(QStringLiteral("B2")) == QLatin1String("held"); }));
    }

    LiveClient resumed(server.port(), livePath(showId, "since=" + QByteArray::number(seen) + "&epoch=" + epoch.toLatin1()), token);
    resumed.setSeatOrder(order);
    ASSERT_TRUE(resumed.waitFor([&] { return resumed.status(QStringLiteral("A7")) == QLatin1String("held") && resumed.status(QStringLiteral("B2")) == QLatin1String("held"); }));
    const QJsonObject head = resumed.messages().front();
    EXPECT_EQ(head.value(QStringLiteral("type")).toString(), QStringLiteral("resumed"));
    EXPECT_EQ(head.value(QStringLiteral("from_version")).toInteger(), seen);
    EXPECT_GT(head.value(QStringLiteral("version")).toInteger(), seen);
    EXPECT_TRUE(consecutive(resumed.deltaVersions(), seen));
    EXPECT_EQ(resumed.deltaVersions().back(), head.value(QStringLiteral("version")).toInteger());
    // No snapshot was resent: the client's old state plus the deltas is the current seat map.
    QMap<QString, QString> pieced = before;
    for (auto it = resumed.statuses().constBegin(); it != resumed.statuses().constEnd(); ++it)
        pieced[it.key()] = it.value();
    EXPECT_EQ(pieced, seatStatuses(*kiosk, showId));

    // At the current version: a resumed header and nothing else.
    LiveClient current(server.port(), livePath(showId, "since=" + QByteArray::number(resumed.version()) + "&epoch=" + epoch.toLatin1()), token);
    ASSERT_TRUE(current.waitFor([&] { return !current.messages().empty(); }));
    EXPECT_EQ(current.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("resumed"));
    EXPECT_TRUE(current.deltaVersions().empty());

    // Another epoch (a restarted server) or a version older than what is kept: a fresh snapshot instead.
    LiveClient otherEpoch(server.port(), livePath(showId, "since=" + QByteArray::number(seen) + "&epoch=0000"), token);
    ASSERT_TRUE(otherEpoch.waitFor([&] { return !otherEpoch.messages().empty(); }));
    EXPECT_EQ(otherEpoch.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("snapshot"));
    LiveClient tooOld(server.port(), livePath(showId, "since=0&epoch=" + epoch.toLatin1()), token);
    ASSERT_TRUE(tooOld.waitFor([&] { return !tooOld.messages().empty(); }));
    EXPECT_EQ(tooOld.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("snapshot"));
}

TEST(Live, BadRequestsGetAnErrorAndAClose)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 5);
    const QString token = server.deviceToken();
    const auto expectRefused = [&](const QByteArray &path, const QString &tokenToUse, const QString &error, int code) {
        LiveClient live(server.port(), path, tokenToUse);
        ASSERT_TRUE(live.waitFor([&] { return live.closed(); })) << path.constData() << " stayed open";
        ASSERT_FALSE(live.messages().empty()) << path.constData();
        EXPECT_EQ(live.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("error")) << path.constData();
        EXPECT_EQ(live.messages().front().value(QStringLiteral("error")).toString(), error) << path.constData();
        EXPECT_FALSE(live.messages().front().value(QStringLiteral("message")).toString().isEmpty());
        EXPECT_EQ(live.closeCode(), code) << path.constData();
    };
    expectRefused("/api/v1/shows/abc/live", token, QStringLiteral("invalid_id"), 4400);
    expectRefused("/api/v1/shows/0/live", token, QStringLiteral("invalid_id"), 4400);
    expectRefused(livePath(987654321), token, QStringLiteral("show_not_found"), 4404);
    expectRefused(livePath(showId, "since=-1"), token, QStringLiteral("invalid_version"), 4400);
    expectRefused(livePath(showId, "since=many"), token, QStringLiteral("invalid_version"), 4400);
    expectRefused("/api/v1/shows/" + QByteArray::number(showId) + "/seatmap", token, QStringLiteral("not_found"), 4404);
    expectRefused(livePath(showId), QString(), QStringLiteral("unauthorized"), 4401);
    expectRefused(livePath(showId), QStringLiteral("not-a-token"), QStringLiteral("unauthorized"), 4401);

    // A version from the future of the current epoch.
    LiveClient live(server.port(), livePath(showId), token);
    ASSERT_TRUE(live.waitFor([&] { return !live.messages().empty(); }));
    const QByteArray future = "since=" + QByteArray::number(live.version() + 100) + "&epoch=" + live.epoch().toLatin1();
    expectRefused(livePath(showId, future), token, QStringLiteral("invalid_version"), 4400);

    // The token may also travel in the query (browsers cannot set headers on a WebSocket).
    LiveClient byQuery(server.port(), livePath(showId, "access_token=" + QUrl::toPercentEncoding(token)), QString());
    ASSERT_TRUE(byQuery.waitFor([&] { return !byQuery.messages().empty(); }));
    EXPECT_EQ(byQuery.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("snapshot"));

    // Plain HTTP to the same path is unknown (only the WebSocket upgrade is served there).
    auto client = server.client(token);
    EXPECT_EQ(client->get(livePath(showId)).status, 404);
}

TEST(Live, SubscribersBeyondTheLimitAreTurnedAway)
{
    TestServer::Options options;
    options.configure = [](ServerConfig &config) { config.maxLiveSubscribers = 2; };
    TestServer server(options);
    const qint64 showId = server.createShow(1, 5);
    const QString token = server.deviceToken();
    LiveClient first(server.port(), livePath(showId), token);
    LiveClient second(server.port(), livePath(showId), token);
    ASSERT_TRUE(first.waitFor([&] { return !first.messages().empty() && !second.messages().empty(); }));
    LiveClient third(server.port(), livePath(showId), token);
    ASSERT_TRUE(third.waitFor([&] { return third.closed(); }));
    EXPECT_EQ(third.closeCode(), 4429);
    ASSERT_FALSE(third.messages().empty());
    EXPECT_EQ(third.messages().front().value(QStringLiteral("error")).toString(), QStringLiteral("too_many_subscribers"));
    // When one leaves, there is room again.
    first.close();
    ASSERT_TRUE(first.waitFor([&] { return first.closed(); }));
    bool admitted = false;
    for (int attempt = 0; attempt < 20 && !admitted; ++attempt) {
        LiveClient again(server.port(), livePath(showId), token);
        again.waitFor([&] { return !again.messages().empty(); }, 3000);
        admitted = !again.messages().empty() && again.messages().front().value(QStringLiteral("type")).toString() == QLatin1String("snapshot");
    }
    EXPECT_TRUE(admitted);
}
