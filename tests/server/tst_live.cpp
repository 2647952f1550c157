// SPDX-License-Identifier: AGPL-3.0-or-later
// Live seat-map deltas over WebSocket: real QWebSocket clients over loopback against a real
// in-process server and PostgreSQL. A snapshot, then the deltas of holds, releases and a cash sale; resume after a
// reconnect; and clear errors for bad shows, versions, paths and tokens.
#include "liveclient.h"
#include "servertesthelpers.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkRequest>
#include <QThread>
#include <QTimer>
#include <QUrlQuery>
#include <QWebSocket>
#include <arpa/inet.h>
#include <atomic>
#include <functional>
#include <gtest/gtest.h>
#include <iostream>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <random>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace marquee;
using namespace marquee::test;

namespace {

/**
 * @brief A subscriber that never reads: a raw socket with a tiny receive buffer, which sends the WebSocket
 * handshake, reads the 101 and nothing else.
 */
class SilentSubscriber
{
public:
    SilentSubscriber(quint16 port, const QByteArray &path, const QString &token)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        const int small = 4096;
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small); // before connect: the window stays small
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0)
            return;
        const QByteArray request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                   "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer "
            + token.toLatin1() + "\r\n\r\n";
        ::send(m_fd, request.constData(), size_t(request.size()), MSG_NOSIGNAL);
        // Read the response head byte by byte, so that not one byte of the stream after it is consumed.
        QByteArray head;
        char byte = 0;
        while (!head.endsWith("\r\n\r\n") && ::recv(m_fd, &byte, 1, 0) == 1)
            head += byte;
        m_upgraded = head.startsWith("HTTP/1.1 101");
    }
    ~SilentSubscriber() { ::close(m_fd); }
    bool upgraded() const { return m_upgraded; }
    /** @brief The server closed or reset the connection (seen without reading the data queued before it). */
    bool cutOff() const
    {
        pollfd p{m_fd, POLLRDHUP, 0};
        return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
    }

private:
    int m_fd = -1;
    bool m_upgraded = false;
};

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

// The role matrix (tst_rolematrix.cpp) walks the router's table; this WebSocket is accepted outside it (LiveHub), so
// its row of the matrix is here: every role may follow a seat map, no token may not.
TEST(Live, RoleMatrixRowEveryRoleMayFollowASeatMapWithoutATokenNobody)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 5);
    const std::vector<std::pair<QString, QString>> callers = {{QStringLiteral("kiosk"), server.deviceToken(QStringLiteral("kiosk"))},
                                                              {QStringLiteral("till"), server.deviceToken(QStringLiteral("till"))},
                                                              {QStringLiteral("cashier"), server.staffToken(QStringLiteral("cashier"))},
                                                              {QStringLiteral("manager"), server.staffToken(QStringLiteral("manager"))},
                                                              {QStringLiteral("admin"), server.staffToken(QStringLiteral("admin"))}};
    for (const auto &[role, token] : callers) {
        LiveClient live(server.port(), livePath(showId), token);
        ASSERT_TRUE(live.waitFor([&] { return !live.messages().empty() || live.closed(); })) << role.toStdString();
        ASSERT_FALSE(live.messages().empty()) << role.toStdString() << " was closed with " << live.closeCode();
        EXPECT_EQ(live.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("snapshot")) << role.toStdString();
        EXPECT_FALSE(live.closed()) << role.toStdString();
    }
    LiveClient anonymous(server.port(), livePath(showId), QString());
    ASSERT_TRUE(anonymous.waitFor([&] { return anonymous.closed(); }));
    EXPECT_EQ(anonymous.closeCode(), 4401);
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

TEST(Live, ManySubscribersAndConcurrentWritersEndWithTheServersSeatMap)
{
    // 200 subscribers over real loopback WebSockets, four writers holding, releasing and selling at once, and some
    // subscribers reconnecting with `since` in the middle: at the end every subscriber's seat map, pieced together
    // from its snapshot and deltas, is the server's, and every subscriber saw consecutive versions.
    TestServer server;
    const qint64 showId = server.createShow(10, 20);
    const QString token = server.deviceToken();
    const QString cashierToken = server.staffToken(QStringLiteral("cashier"));
    auto kiosk = server.client(token);
    const QStringList order = seatOrder(*kiosk, showId);
    ASSERT_EQ(order.size(), 200);

    constexpr int kSubscribers = 200;
    std::vector<std::unique_ptr<LiveClient>> live;
    std::vector<qint64> firstVersion(kSubscribers, -1);
    for (int i = 0; i < kSubscribers; ++i) {
        live.push_back(std::make_unique<LiveClient>(server.port(), livePath(showId), token));
        live.back()->setSeatOrder(order);
    }
    ASSERT_TRUE(pumpUntil([&] { return std::all_of(live.begin(), live.end(), [](const auto &c) { return c->version() >= 0; }); }, 60000))
        << "not every subscriber got its snapshot";
    for (int i = 0; i < kSubscribers; ++i)
        firstVersion[size_t(i)] = live[size_t(i)]->version();

    std::atomic<int> writersDone{0};
    std::atomic<int> writes{0};
    std::vector<std::thread> writers;
    for (int w = 0; w < 4; ++w) {
        writers.emplace_back([&, w] {
            const bool cashier = w == 3; // sells for cash; the others hold and release
            HttpClient client(QStringLiteral("127.0.0.1"), server.port());
            client.setToken(cashier ? cashierToken : token);
            std::mt19937 random(unsigned(w) * 7919u + 1u);
            for (int round = 0; round < 40; ++round) {
                QStringList seats;
                const int count = 1 + int(random() % 3);
                for (int k = 0; k < count; ++k)
                    seats << order.at(int(random() % unsigned(order.size())));
                seats.removeDuplicates();
                const HttpResult held = client.post(holdPath(showId), seatsBody(seats));
                if (held.status != 200)
                    continue; // taken by another writer: fine, that is the point
                ++writes;
                const QByteArray holdId = held.json()[QStringLiteral("hold_id")].toString().toLatin1();
                if (cashier) {
                    const HttpResult created = client.post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), QString::fromLatin1(holdId)},
                                                                                        {QStringLiteral("payment_method"), QStringLiteral("cash")}});
                    if (created.status == 201)
                        client.post("/api/v1/orders/" + created.json()[QStringLiteral("order_id")].toString().toUtf8() + "/confirm",
                                    QJsonObject{{QStringLiteral("payment_intent_id"), created.json()[QStringLiteral("payment_intent_id")]}});
                } else if (random() % 3 != 0) {
                    client.del("/api/v1/holds/" + holdId); // most holds are released again, some stay
                }
            }
            ++writersDone;
        });
    }

    // Meanwhile a tenth of the subscribers drop off and come back with `since`, carrying what they had.
    ASSERT_TRUE(pumpUntil([&] { return writes.load() >= 20; }, 60000));
    int resumed = 0;
    for (int i = 0; i < kSubscribers; i += 10) {
        LiveClient &old = *live[size_t(i)];
        const QMap<QString, QString> had = old.statuses();
        const qint64 since = old.version();
        const QString epoch = old.epoch();
        EXPECT_TRUE(consecutive(old.deltaVersions(), firstVersion[size_t(i)])) << "subscriber " << i << " before reconnecting";
        old.close();
        auto again = std::make_unique<LiveClient>(server.port(), livePath(showId, "since=" + QByteArray::number(since) + "&epoch=" + epoch.toLatin1()), token);
        again->setSeatOrder(order);
        again->setStatuses(had);
        live[size_t(i)] = std::move(again);
        firstVersion[size_t(i)] = since;
        ++resumed;
    }
    ASSERT_TRUE(pumpUntil([&] { return writersDone.load() == 4; }, 120000));
    for (auto &writer : writers)
        writer.join();
    EXPECT_GT(writes.load(), 40);

    // Releases reach the feed through a read of the show; wait for the last one, then compare every subscriber.
    const QMap<QString, QString> truth = seatStatuses(*kiosk, showId);
    ASSERT_EQ(truth.size(), 200);
    ASSERT_TRUE(truth.values().contains(QStringLiteral("booked")));
    const bool converged = pumpUntil([&] { return std::all_of(live.begin(), live.end(), [&](const auto &c) { return c->statuses() == truth; }); }, 15000);
    int behind = 0;
    for (int i = 0; i < kSubscribers; ++i) {
        const LiveClient &client = *live[size_t(i)];
        behind += client.statuses() != truth;
        EXPECT_FALSE(client.closed()) << "subscriber " << i;
        EXPECT_TRUE(consecutive(client.deltaVersions(), firstVersion[size_t(i)])) << "subscriber " << i;
    }
    EXPECT_TRUE(converged) << behind << " of " << kSubscribers << " subscribers differ from the server's seat map";
    for (int i = 0; i < kSubscribers; i += 10) {
        ASSERT_FALSE(live[size_t(i)]->messages().empty());
        EXPECT_EQ(live[size_t(i)]->messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("resumed")) << "subscriber " << i;
    }
    EXPECT_EQ(resumed, kSubscribers / 10);
}

TEST(Live, ASlowSubscriberIsCutOffWithoutHoldingBackTheOthersAndResumes)
{
    TestServer::Options options;
    options.maxSeatsPerHold = 200;
    options.configure = [](ServerConfig &config) { config.liveMaxBufferedBytes = 64 * 1024; };
    TestServer server(options);
    const qint64 showId = server.createShow(20, 50);
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);
    const QStringList order = seatOrder(*kiosk, showId);
    ASSERT_EQ(order.size(), 1000);

    SilentSubscriber slow(server.port(), livePath(showId), token);
    ASSERT_TRUE(slow.upgraded());
    LiveClient fast(server.port(), livePath(showId), token);
    fast.setSeatOrder(order);
    ASSERT_TRUE(fast.waitFor([&] { return fast.version() >= 0; }));
    const qint64 fastFirst = fast.version();
    const QString epoch = fast.epoch();

    // A writer on its own thread holds and releases 200 seats at a time (deltas of several KiB each) until the
    // server has cut the silent subscriber off; this thread keeps reading for the fast one meanwhile.
    std::atomic<bool> stop{false};
    std::atomic<int> cycles{0};
    std::thread writer([&] {
        HttpClient client(QStringLiteral("127.0.0.1"), server.port());
        client.setToken(token);
        while (!stop.load() && cycles.load() < 2000) {
            const int from = (cycles.load() % 5) * 200;
            const HttpResult held = client.post(holdPath(showId), seatsBody(order.mid(from, 200)));
            if (held.status == 200)
                client.del("/api/v1/holds/" + held.json()[QStringLiteral("hold_id")].toString().toLatin1());
            ++cycles;
        }
    });
    const bool cutOff = pumpUntil([&] { return slow.cutOff(); }, 60000);
    stop = true;
    writer.join();
    ASSERT_TRUE(cutOff) << "the silent subscriber was still connected after " << cycles.load() << " hold/release cycles";

    // The fast subscriber was never held back: it stays connected and ends with the server's seat map.
    const QMap<QString, QString> truth = seatStatuses(*kiosk, showId);
    EXPECT_TRUE(pumpUntil([&] { return fast.statuses() == truth; }, 15000));
    EXPECT_FALSE(fast.closed());
    EXPECT_TRUE(consecutive(fast.deltaVersions(), fastFirst));

    // The cut-off client comes back with `since` (a version it had) and is brought up to date.
    LiveClient back(server.port(), livePath(showId, "since=" + QByteArray::number(fastFirst) + "&epoch=" + epoch.toLatin1()), token);
    back.setSeatOrder(order);
    QMap<QString, QString> allAvailable;
    for (const QString &seat : order)
        allAvailable.insert(seat, QStringLiteral("available"));
    back.setStatuses(allAvailable); // what it had at fastFirst: nothing sold yet
    EXPECT_TRUE(back.waitFor([&] { return back.statuses() == truth; }, 15000));
    EXPECT_FALSE(back.closed());
}

namespace {

/** @brief True when a delta @p client received set @p seat to @p status. */
bool replays(const LiveClient &client, const QString &seat, const QString &status)
{
    for (const QJsonObject &message : client.messages()) {
        if (message.value(QStringLiteral("type")).toString() != QLatin1String("delta"))
            continue;
        for (const QJsonValue &change : message.value(QStringLiteral("changes")).toArray()) {
            if (change[QStringLiteral("seat_id")].toString() == seat && change[QStringLiteral("status")].toString() == status)
                return true;
        }
    }
    return false;
}

/** @brief Sell @p seats for cash at the box office; the booking id. */
QString sellForCash(HttpClient &cashier, qint64 showId, const QStringList &seats)
{
    const HttpResult held = cashier.post(holdPath(showId), seatsBody(seats));
    if (held.status != 200)
        return {};
    const HttpResult created = cashier.post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), held.json()[QStringLiteral("hold_id")]},
                                                                          {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    if (created.status != 201)
        return {};
    const HttpResult confirmed = cashier.post("/api/v1/orders/" + created.json()[QStringLiteral("order_id")].toString().toUtf8() + "/confirm",
                                              QJsonObject{{QStringLiteral("payment_intent_id"), created.json()[QStringLiteral("payment_intent_id")]}});
    return confirmed.status == 200 ? confirmed.json()[QStringLiteral("booking_id")].toString() : QString();
}

} // namespace

TEST(Live, ReleasesAndRefundsAreSentAtOnceAndReplayedOnResume)
{
    // A release (DELETE /holds/{id}) and a cancelled, refunded booking free seats: each reaches a subscriber as an
    // `available` delta, and a client that was away and resumes from a version before them gets them replayed.
    TestServer server;
    const qint64 showId = server.createShow(2, 10);
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);
    auto cashier = server.client(server.elevatedStaffToken(QStringLiteral("cashier")));
    const QStringList order = seatOrder(*kiosk, showId);

    LiveClient live(server.port(), livePath(showId), token);
    live.setSeatOrder(order);
    ASSERT_TRUE(live.waitFor([&] { return live.version() >= 0; }));
    const qint64 first = live.version();
    const QMap<QString, QString> atFirst = live.statuses();
    const QString epoch = live.epoch();

    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("A2")}));
    ASSERT_EQ(held.status, 200) << held.body.constData();
    ASSERT_TRUE(live.waitForStatus(QStringLiteral("A2"), QStringLiteral("held")));
    ASSERT_EQ(kiosk->del("/api/v1/holds/" + held.json()[QStringLiteral("hold_id")].toString().toLatin1()).status, 200);
    QElapsedTimer sinceRelease;
    sinceRelease.start();
    ASSERT_TRUE(live.waitFor([&] { return live.status(QStringLiteral("A1")) == QLatin1String("available") && live.status(QStringLiteral("A2")) == QLatin1String("available"); }, 5000))
        << "the release did not reach the subscriber within 5 s";
    std::cout << "release → available delta after " << sinceRelease.elapsed() << " ms\n";

    const QString bookingId = sellForCash(*cashier, showId, {QStringLiteral("B5"), QStringLiteral("B6")});
    ASSERT_FALSE(bookingId.isEmpty());
    ASSERT_TRUE(live.waitForStatus(QStringLiteral("B6"), QStringLiteral("booked")));
    const HttpResult cancelled = cashier->post("/api/v1/bookings/" + bookingId.toUtf8() + "/cancel", QJsonObject{{QStringLiteral("reason"), QStringLiteral("refund please")}});
    ASSERT_EQ(cancelled.status, 200) << cancelled.body.constData();
    EXPECT_GT(cancelled.json().value(QStringLiteral("refund")).toObject().value(QStringLiteral("amount_minor")).toInteger(), 0);
    QElapsedTimer sinceRefund;
    sinceRefund.start();
    ASSERT_TRUE(live.waitFor([&] { return live.status(QStringLiteral("B5")) == QLatin1String("available") && live.status(QStringLiteral("B6")) == QLatin1String("available"); }, 5000))
        << "the refund did not reach the subscriber within 5 s";
    std::cout << "refund → available delta after " << sinceRefund.elapsed() << " ms\n";
    EXPECT_TRUE(consecutive(live.deltaVersions(), first));
    const QMap<QString, QString> truth = seatStatuses(*kiosk, showId);
    EXPECT_EQ(live.statuses(), truth);

    // Away since before the hold: the resume replays held → available and booked → available, no snapshot.
    LiveClient resumed(server.port(), livePath(showId, "since=" + QByteArray::number(first) + "&epoch=" + epoch.toLatin1()), token);
    resumed.setSeatOrder(order);
    resumed.setStatuses(atFirst);
    ASSERT_TRUE(resumed.waitFor([&] { return resumed.version() >= live.version(); }));
    EXPECT_EQ(resumed.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("resumed"));
    EXPECT_TRUE(consecutive(resumed.deltaVersions(), first));
    EXPECT_TRUE(replays(resumed, QStringLiteral("A1"), QStringLiteral("held")));
    EXPECT_TRUE(replays(resumed, QStringLiteral("A1"), QStringLiteral("available")));
    EXPECT_TRUE(replays(resumed, QStringLiteral("B5"), QStringLiteral("booked")));
    EXPECT_TRUE(replays(resumed, QStringLiteral("B5"), QStringLiteral("available")));
    EXPECT_EQ(resumed.statuses(), truth);
}

TEST(Live, AnExpiredHoldIsSentAsAvailableAndReplayedOnResume)
{
    TestServer::Options options;
    options.holdTtlSeconds = 1;
    TestServer server(options);
    const qint64 showId = server.createShow(2, 10);
    const QString token = server.deviceToken();
    auto kiosk = server.client(token);
    const QStringList order = seatOrder(*kiosk, showId);

    LiveClient live(server.port(), livePath(showId), token);
    live.setSeatOrder(order);
    ASSERT_TRUE(live.waitFor([&] { return live.version() >= 0; }));
    const qint64 first = live.version();
    const QMap<QString, QString> atFirst = live.statuses();

    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A4")}));
    ASSERT_EQ(held.status, 200) << held.body.constData();
    const QDateTime expiresAt = QDateTime::fromString(held.json()[QStringLiteral("expires_at")].toString(), Qt::ISODateWithMs);
    ASSERT_TRUE(expiresAt.isValid());
    // Held and then available (the hold lives only a second, so both may arrive between two looks).
    ASSERT_TRUE(live.waitFor([&] { return replays(live, QStringLiteral("A4"), QStringLiteral("held")); }));
    ASSERT_TRUE(live.waitFor([&] { return live.status(QStringLiteral("A3")) == QLatin1String("available") && live.status(QStringLiteral("A4")) == QLatin1String("available"); }, 6000))
        << "the lapse did not reach the subscriber within 5 s of the hold's TTL";
    std::cout << "lapse → available delta " << expiresAt.msecsTo(QDateTime::currentDateTimeUtc()) << " ms after expires_at\n";
    EXPECT_TRUE(consecutive(live.deltaVersions(), first));
    // The reaper frees the rows too (the status was already `available` to readers: no second delta needed).
    ASSERT_TRUE(live.waitFor([&] {
        return server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status = 'held'").arg(showId)).toInt() == 0;
    }));

    LiveClient resumed(server.port(), livePath(showId, "since=" + QByteArray::number(first) + "&epoch=" + live.epoch().toLatin1()), token);
    resumed.setSeatOrder(order);
    resumed.setStatuses(atFirst);
    ASSERT_TRUE(resumed.waitFor([&] { return resumed.version() >= live.version(); }));
    EXPECT_EQ(resumed.messages().front().value(QStringLiteral("type")).toString(), QStringLiteral("resumed"));
    EXPECT_TRUE(replays(resumed, QStringLiteral("A3"), QStringLiteral("held")));
    EXPECT_TRUE(replays(resumed, QStringLiteral("A3"), QStringLiteral("available")));
    EXPECT_EQ(resumed.statuses(), seatStatuses(*kiosk, showId));
}

TEST(Live, AHoldAReleaseAndAnExpirySweepEachTellTheSeatsTheyWroteOnce)
{
    // The contract under the deltas above, without timing: the release route and the reaper's sweep hand the seats
    // they freed to store::SeatWrites themselves (nothing else is asked to re-read the show).
    TestServer::Options options;
    options.holdTtlSeconds = 1;
    options.reaperIntervalMs = 600000; // the sweep is run below, by hand
    TestServer server(options);
    const qint64 showId = server.createShow(2, 10);
    auto kiosk = server.client(server.deviceToken());
    struct Told {
        qint64 showId;
        QStringList seatIds;
        SeatStatus status;
    };
    std::mutex mutex;
    std::vector<Told> told;
    server.context().database.seatWrites().setSink([&](qint64 show, const QStringList &seats, SeatStatus status) {
        std::lock_guard lock(mutex);
        QStringList sorted = seats;
        sorted.sort();
        told.push_back({show, sorted, status});
    });
    const auto toldSoFar = [&] {
        std::lock_guard lock(mutex);
        return told;
    };

    const QList<QPair<QByteArray, QByteArray>> key{{"Idempotency-Key", "told-once"}};
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B2"), QStringLiteral("A9")}), key);
    ASSERT_EQ(held.status, 200) << held.body.constData();
    std::vector<Told> afterHold = toldSoFar();
    ASSERT_EQ(afterHold.size(), 1u);
    EXPECT_EQ(afterHold[0].showId, showId);
    EXPECT_EQ(afterHold[0].seatIds, (QStringList{QStringLiteral("A9"), QStringLiteral("B2")}));
    EXPECT_EQ(afterHold[0].status, SeatStatus::Held);
    // The same request again is a replay: nothing was written, nothing is told.
    const HttpResult replayed = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A9"), QStringLiteral("B2")}), key);
    ASSERT_EQ(replayed.status, 200) << replayed.body.constData();
    EXPECT_EQ(replayed.json()[QStringLiteral("hold_id")], held.json()[QStringLiteral("hold_id")]);
    EXPECT_EQ(toldSoFar().size(), 1u);
    const QByteArray releasePath = "/api/v1/holds/" + held.json()[QStringLiteral("hold_id")].toString().toLatin1();
    ASSERT_EQ(kiosk->del(releasePath).status, 200);
    std::vector<Told> afterRelease = toldSoFar();
    ASSERT_EQ(afterRelease.size(), 2u);
    EXPECT_EQ(afterRelease[1].showId, showId);
    EXPECT_EQ(afterRelease[1].seatIds, (QStringList{QStringLiteral("A9"), QStringLiteral("B2")}));
    EXPECT_EQ(afterRelease[1].status, SeatStatus::Available);
    // Releasing again frees nothing and tells nothing.
    ASSERT_EQ(kiosk->del(releasePath).status, 200);
    EXPECT_EQ(toldSoFar().size(), 2u);

    const HttpResult lapsing = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A5")}));
    ASSERT_EQ(lapsing.status, 200) << lapsing.body.constData();
    const HttpResult other = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A6")}));
    ASSERT_EQ(other.status, 200);
    ASSERT_EQ(toldSoFar().size(), 4u);
    EXPECT_EQ(toldSoFar()[2].status, SeatStatus::Held);
    EXPECT_EQ(toldSoFar()[3].status, SeatStatus::Held);
    QThread::msleep(1300); // both lapse
    EXPECT_EQ(server.context().holds.reapExpired(1000), 2);
    const std::vector<Told> afterSweep = toldSoFar();
    ASSERT_EQ(afterSweep.size(), 5u);
    EXPECT_EQ(afterSweep[4].showId, showId);
    EXPECT_EQ(afterSweep[4].seatIds, (QStringList{QStringLiteral("A5"), QStringLiteral("A6")}));
    EXPECT_EQ(afterSweep[4].status, SeatStatus::Available);
    EXPECT_EQ(server.context().holds.reapExpired(1000), 0); // nothing left, nothing told
    EXPECT_EQ(toldSoFar().size(), 5u);
    server.context().database.seatWrites().setSink(nullptr);
}
