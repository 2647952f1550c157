// SPDX-License-Identifier: AGPL-3.0-or-later
// The till's leases and its journal of offline sales against a real in-process server over loopback (the fault
// proxy cutting answers): the allowance leased once even when an answer was lost, unsold seats given back from
// return_by (never while a sale of the lease is unreported), and offline sales uploaded oldest first, each booked
// exactly once after a lost answer, counted once in the cashier's shift, refusals kept for a person.
#include "faultproxy.h"
#include "store/sessiondevicerepository.h"
#include "sync/apiclient.h"
#include "sync/deviceticketsigner.h"
#include "sync/leasekeeper.h"
#include "sync/localstore.h"
#include "sync/offlinesales.h"
#include "sync/syncengine.h"
#include "synctesthelpers.h"
#include "testserver.h"
#include "tillleasehelpers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::sync;
using namespace marquee::test;

namespace {

constexpr qint64 kStandard = 1250; // TestServer::createShow: rows before the last two
constexpr qint64 kPremium = 1800;

QUrl urlOf(quint16 port)
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
}

HttpResult putJson(HttpClient &client, const QByteArray &path, const QJsonObject &body)
{
    return client.request("PUT", path, QJsonDocument(body).toJson(QJsonDocument::Compact), {{"Content-Type", "application/json"}});
}

/** @brief A till device with its own journal, its leases kept by a LeaseKeeper on its own token. */
struct TillDevice {
    explicit TillDevice(TestServer &server, int windowSeconds = 3 * 3600)
        : server(server)
        , token(server.deviceToken(QStringLiteral("till")))
        , api(urlOf(server.port()))
    {
        EXPECT_TRUE(store.open(dir.filePath(QStringLiteral("till.db"))));
        api.setToken(token);
        LeaseKeeper::Options options;
        options.windowSeconds = windowSeconds;
        options.refreshIntervalMs = 600000; // passes only when a test asks for one
        keeper = std::make_unique<LeaseKeeper>(store, api, options);
    }
    /** @brief One pass of the keeper, to its end. */
    bool pass()
    {
        std::optional<bool> complete;
        const QMetaObject::Connection watch = QObject::connect(keeper.get(), &LeaseKeeper::refreshed, [&](bool whole) {
            if (!complete)
                complete = whole;
        });
        if (!keeper->isOnline())
            keeper->setOnline(true); // the first pass starts by itself
        else
            keeper->refresh();
        const bool ended = waitUntil([&] { return complete.has_value(); }, 20000);
        QObject::disconnect(watch);
        return ended && *complete;
    }
    qint64 serverLeases() { return server.scalar(QStringLiteral("SELECT count(*) FROM seat_leases")).toLongLong(); }

    TestServer &server;
    QTemporaryDir dir;
    QString token;
    LocalStore store;
    ApiClient api;
    std::unique_ptr<LeaseKeeper> keeper;
};

QJsonObject showOf(qint64 showId, const QDateTime &startsAt)
{
    return QJsonObject{{QStringLiteral("show_id"), showId}, {QStringLiteral("starts_at"), startsAt.toString(Qt::ISODateWithMs)}};
}

qint64 priceOf(const QString &seat)
{
    return seat.startsWith(QLatin1Char('C')) || seat.startsWith(QLatin1Char('D')) ? kPremium : kStandard;
}

} // namespace

TEST(TillLeases, TheTillLeasesItsAllowanceOnceEvenWhenTheAnswerToItsRequestWasLost)
{
    TestServer server;
    const QDateTime startsAt = QDateTime::currentDateTimeUtc().addSecs(2 * 3600);
    const qint64 showId = server.createShow(4, 6, startsAt);
    const qint64 later = server.createShow(4, 6, QDateTime::currentDateTimeUtc().addSecs(6 * 3600)); // outside the window
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    ASSERT_EQ(putJson(*manager, "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings", {{QStringLiteral("seats_per_device"), 4}}).status, 200);
    TillDevice till(server);

    // The till asked for its four seats and the answer never came back: the server granted them, the till kept
    // the request (key and body) as unanswered.
    LeaseRequestRecord lost;
    lost.idempotencyKey = QStringLiteral("lease-lost-answer");
    lost.showId = showId;
    lost.body = QJsonObject{{QStringLiteral("best"), 4}};
    ASSERT_TRUE(till.store.recordLeaseRequest(lost));
    const HttpResult granted = server.client(till.token)->post("/api/v1/shows/" + QByteArray::number(showId) + "/leases", lost.body,
                                                               {{"Idempotency-Key", lost.idempotencyKey.toUtf8()}});
    ASSERT_EQ(granted.status, 201) << granted.body.toStdString();

    till.keeper->setShows({showOf(showId, startsAt), showOf(later, QDateTime::currentDateTimeUtc().addSecs(6 * 3600))});
    ASSERT_TRUE(till.pass());
    // Sent again with the same key: the same lease, not a second one.
    EXPECT_EQ(till.serverLeases(), 1);
    EXPECT_FALSE(till.store.pendingLeaseRequest(showId).has_value());
    ASSERT_EQ(till.store.leases(showId).size(), 1);
    EXPECT_EQ(till.store.leases(showId).first().leaseId, granted.json().value(QStringLiteral("lease_id")).toString());
    EXPECT_EQ(till.keeper->sellableSeats(showId).size(), 4);
    EXPECT_TRUE(till.store.leases(later).isEmpty()) << "a show outside the window is not leased";

    // Passes with the allowance met ask for nothing; a larger allowance is topped up by the difference.
    ASSERT_TRUE(till.pass());
    EXPECT_EQ(till.serverLeases(), 1);
    ASSERT_EQ(putJson(*manager, "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings", {{QStringLiteral("seats_per_device"), 6}}).status, 200);
    ASSERT_TRUE(till.pass());
    EXPECT_EQ(till.serverLeases(), 2);
    EXPECT_EQ(till.keeper->sellableSeats(showId).size(), 6);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status::text = 'leased'").arg(showId)).toInt(), 6);
    ASSERT_TRUE(till.pass());
    EXPECT_EQ(till.serverLeases(), 2);

    // The keeper's state is in the journal: after a restart the till knows the same seats without the server.
    const QString path = till.store.path();
    till.keeper.reset();
    till.store.close();
    LocalStore reopened;
    ASSERT_TRUE(reopened.open(path));
    ApiClient nowhere(QUrl(QStringLiteral("http://127.0.0.1:9")));
    LeaseKeeper offline(reopened, nowhere);
    EXPECT_EQ(offline.sellableSeats(showId).size(), 6);
}

TEST(TillLeases, UnsoldSeatsGoBackFromReturnByButNotWhileASaleOfTheLeaseIsUnreported)
{
    TestServer server;
    const QDateTime startsAt = QDateTime::currentDateTimeUtc().addSecs(3600);
    const qint64 showId = server.createShow(4, 6, startsAt);
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    // Seats go back 4 s from now (the start less return_before_seconds).
    const int returnBefore = int(QDateTime::currentDateTimeUtc().secsTo(startsAt)) - 4;
    ASSERT_EQ(putJson(*manager, "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings",
                      {{QStringLiteral("seats_per_device"), 3}, {QStringLiteral("return_before_seconds"), returnBefore}})
                  .status,
              200);
    TillDevice till(server);
    till.keeper->setShows({showOf(showId, startsAt)});
    ASSERT_TRUE(till.pass());
    ASSERT_EQ(till.store.leases(showId).size(), 1);
    const StoredLease lease = till.store.leases(showId).first();
    ASSERT_EQ(lease.leasedSeats().size(), 3);

    // A sale of one of its seats, journaled offline and not reported yet.
    OfflineSaleRecord sale;
    sale.deviceSeq = till.store.nextDeviceSeq();
    sale.leaseId = lease.leaseId;
    sale.showId = showId;
    sale.seatIds = {lease.leasedSeats().first()};
    sale.amountMinor = priceOf(sale.seatIds.first());
    sale.currency = QStringLiteral("EUR");
    sale.tenderedMinor = sale.amountMinor;
    sale.soldAt = QDateTime::currentDateTimeUtc();
    sale.staff = QStringLiteral("ana");
    ASSERT_TRUE(till.store.journalOfflineSale(sale));
    EXPECT_EQ(till.keeper->sellableSeats(showId).size(), 2) << "a seat sold offline is not offered again";

    ASSERT_TRUE(waitUntil([&] { return QDateTime::currentDateTimeUtc() > lease.returnBy.addMSecs(300); }, 10000));
    till.pass();
    EXPECT_EQ(till.store.lease(lease.leaseId)->state, QStringLiteral("active")) << "kept while its sale is unreported";
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status::text = 'leased'").arg(showId)).toInt(), 3);
    EXPECT_EQ(till.serverLeases(), 1) << "no new lease from return_by on";

    // Once the sale is booked the lease goes back: its unsold seats are on sale again.
    ASSERT_TRUE(till.store.answerOfflineSale(sale.deviceSeq, QStringLiteral("booked"), 201, "{}", QStringLiteral("b"), QStringLiteral("R"), {}));
    ASSERT_TRUE(till.pass());
    EXPECT_EQ(till.store.lease(lease.leaseId)->state, QStringLiteral("returned"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = %1 AND status::text = 'available'").arg(showId)).toInt(), 24);
    EXPECT_TRUE(till.keeper->sellableSeats(showId).isEmpty());
}

TEST(TillLeases, OfflineSalesUploadOldestFirstEachBookedOnceAfterALostAnswerAndCountedOnceInTheShift)
{
    TestServer server;
    const QDateTime startsAt = QDateTime::currentDateTimeUtc().addSecs(2 * 3600);
    const qint64 showId = server.createShow(4, 6, startsAt);
    TillDevice till(server);
    // The cashier signed in at this till (the session is the till's), with a shift open.
    const QString cashierToken = server.elevatedStaffToken(QStringLiteral("cashier"));
    const qint64 tillId = server.context().auth.authenticate(till.token)->id;
    ASSERT_TRUE(store::SessionDeviceRepository(server.context().database).bind(cashierToken, tillId));
    server.context().auth.clearCache();
    auto cashier = server.client(cashierToken);
    ASSERT_EQ(cashier->post("/api/v1/shifts", {{QStringLiteral("opening_float_minor"), 5000}, {QStringLiteral("currency"), QStringLiteral("EUR")}}).status, 201);

    // The till's key and its lease's delegation (the venue's keys come with the feeds).
    DeviceTicketSigner signer(till.store);
    ASSERT_TRUE(signer.open()) << signer.errorString().toStdString();
    till.keeper->setRequestDecorator([&](QJsonObject &body) { body.insert(QStringLiteral("device_public_key"), signer.publicKey()); });
    SyncEngine engine(till.store, till.api);
    int feeds = 0;
    QObject::connect(&engine, &SyncEngine::feedsCaughtUp, [&] { ++feeds; });
    engine.start();
    ASSERT_TRUE(waitUntil([&] { return feeds > 0; }, 20000));
    till.keeper->setShows({showOf(showId, startsAt)});
    ASSERT_TRUE(till.pass());
    ASSERT_EQ(till.store.leases(showId).size(), 1);
    const StoredLease lease = till.store.leases(showId).first();
    // The venue's signing key may be younger than the last keys feed (made for this delegation): the feeds again.
    const int before = feeds;
    engine.refreshFeeds();
    ASSERT_TRUE(waitUntil([&] { return feeds > before; }, 20000));
    ASSERT_TRUE(keepDelegation(till.store, signer, lease));
    QStringList seats = lease.leasedSeats();
    ASSERT_EQ(seats.size(), 6);
    std::sort(seats.begin(), seats.end());

    OfflineSales sales(till.store);
    sales.setTicketSigner(OfflineSales::deviceSigner(signer));
    auto sell = [&](const QStringList &sold, qint64 amount, qint64 tendered) {
        OfflineSales::Sale sale;
        sale.leaseId = lease.leaseId;
        sale.showId = showId;
        sale.seatIds = sold;
        sale.amountMinor = amount;
        sale.currency = QStringLiteral("EUR");
        sale.tenderedMinor = tendered;
        sale.staff = QStringLiteral("ana");
        return sales.journal(sale, [](const OfflineSaleRecord &record) { return QJsonObject{{QStringLiteral("ref"), record.deviceSeq}}; });
    };
    const qint64 twoSeats = priceOf(seats[0]) + priceOf(seats[1]);
    const OfflineSales::Journaled first = sell({seats[0], seats[1]}, twoSeats, 5000);
    ASSERT_TRUE(first.ok()) << first.detail.toStdString();
    const OfflineSales::Journaled second = sell({seats[2]}, priceOf(seats[2]), priceOf(seats[2]));
    ASSERT_TRUE(second.ok()) << second.detail.toStdString();
    EXPECT_EQ(second.sale.deviceSeq, first.sale.deviceSeq + 1);
    EXPECT_FALSE(sell({seats[1]}, priceOf(seats[1]), 5000).ok()) << "a seat is sold once";
    EXPECT_EQ(sell({seats[3]}, priceOf(seats[3]), priceOf(seats[3]) - 1).refusal, OfflineSales::Refusal::InsufficientTender);
    // Journaled, with signed tickets, before anything went to the server.
    const QJsonArray tickets = till.store.offlineSale(first.sale.deviceSeq)->body.value(QStringLiteral("tickets")).toArray();
    ASSERT_EQ(tickets.size(), 2);
    EXPECT_TRUE(tickets[0][QStringLiteral("code")].toString().startsWith(QStringLiteral("MQ2."))) << tickets[0][QStringLiteral("code")].toString().toStdString();
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM lease_sales")).toInt(), 0);

    // Back online through a proxy that cuts the first answer after the server booked the sale.
    FaultProxy proxy(server.port());
    ApiClient uploader(urlOf(proxy.port()));
    uploader.setToken(cashierToken);
    proxy.setMode(FaultProxy::Mode::CutResponse, 1);
    sales.setUploader(&uploader, QStringLiteral("ana"));
    sales.setOnline(true);
    ASSERT_TRUE(waitUntil([&] { return sales.waitingCount() == 0; }, 30000));
    EXPECT_GE(proxy.faultsInjected(), 1);
    const OfflineSaleRecord uploaded = *till.store.offlineSale(first.sale.deviceSeq);
    EXPECT_EQ(uploaded.uploadState, QStringLiteral("booked"));
    EXPECT_GE(uploaded.attempts, 2) << "sent again after the lost answer";
    EXPECT_FALSE(uploaded.bookingRef.isEmpty());
    EXPECT_EQ(till.store.offlineSale(second.sale.deviceSeq)->uploadState, QStringLiteral("booked"));
    // Exactly once each: two sales, two bookings of their seats, none twice.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM lease_sales WHERE lease_id = '%1'").arg(lease.leaseId)).toInt(), 2);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM lease_sales WHERE booking_id IS NOT NULL")).toInt(), 2);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM booking_seats WHERE show_id = %1").arg(showId)).toInt(), 3);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM (SELECT seat_id FROM booking_seats WHERE show_id = %1 GROUP BY seat_id HAVING count(*) > 1) t")
                                .arg(showId))
                  .toInt(),
              0);

    // A sale the server refuses (not what the seats cost) is kept, with the reason, for a person: never dropped.
    const OfflineSales::Journaled wrong = sell({seats[4]}, priceOf(seats[4]) + 100, 5000);
    ASSERT_TRUE(wrong.ok());
    ASSERT_TRUE(waitUntil([&] { return till.store.offlineSale(wrong.sale.deviceSeq)->uploadState != QLatin1String("pending"); }, 20000));
    const OfflineSaleRecord refused = *till.store.offlineSale(wrong.sale.deviceSeq);
    EXPECT_EQ(refused.uploadState, QStringLiteral("refused"));
    EXPECT_TRUE(refused.lastError.startsWith(QStringLiteral("price_mismatch"))) << refused.lastError.toStdString();
    EXPECT_EQ(sales.refused().size(), 1);

    // The Z-report counts each booked offline sale once: its cash, in the cashier's shift.
    const HttpResult closed = cashier->post("/api/v1/shifts/current/close", {{QStringLiteral("counted_cash_minor"), 5000 + twoSeats + priceOf(seats[2])}});
    ASSERT_EQ(closed.status, 200) << closed.body.toStdString();
    const QJsonObject report = closed.json();
    EXPECT_EQ(report.value(QStringLiteral("sales")).toObject().value(QStringLiteral("count")).toInt(), 2) << closed.body.toStdString();
    EXPECT_EQ(report.value(QStringLiteral("over_short_minor")).toInteger(), 0) << closed.body.toStdString();
}

TEST(TillJournal, ASeatIsJournaledOnceUnderItsLeaseAndEverySaleSurvivesAReopen)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("till.db"));
    {
        LocalStore store;
        ASSERT_TRUE(store.open(path));
        OfflineSaleRecord sale;
        sale.deviceSeq = store.nextDeviceSeq();
        EXPECT_EQ(sale.deviceSeq, 1);
        sale.leaseId = QStringLiteral("lease-1");
        sale.showId = 7;
        sale.seatIds = {QStringLiteral("F7"), QStringLiteral("F8")};
        sale.amountMinor = 2500;
        sale.currency = QStringLiteral("EUR");
        sale.tenderedMinor = 3000;
        sale.soldAt = QDateTime::currentDateTimeUtc();
        sale.staff = QStringLiteral("ana");
        sale.body = offlineSaleBody(sale, {});
        ASSERT_TRUE(store.journalOfflineSale(sale));
        // The same seat again under the same lease: refused, nothing written.
        OfflineSaleRecord again = sale;
        again.deviceSeq = store.nextDeviceSeq();
        again.seatIds = {QStringLiteral("F8")};
        EXPECT_FALSE(store.journalOfflineSale(again));
        EXPECT_EQ(store.offlineSales().size(), 1);
        // The same number again: refused (the primary key), nothing written.
        OfflineSaleRecord sameNumber = sale;
        sameNumber.seatIds = {QStringLiteral("G1")};
        EXPECT_FALSE(store.journalOfflineSale(sameNumber));
        EXPECT_EQ(store.nextDeviceSeq(), 2);
        EXPECT_EQ(store.unsettledSales(QStringLiteral("lease-1")), 1);
    }
    LocalStore reopened;
    ASSERT_TRUE(reopened.open(path));
    const QList<OfflineSaleRecord> sales = reopened.offlineSales(QStringLiteral("pending"));
    ASSERT_EQ(sales.size(), 1);
    EXPECT_EQ(sales.first().seatIds, QStringList({QStringLiteral("F7"), QStringLiteral("F8")}));
    EXPECT_EQ(sales.first().printState, QStringLiteral("pending"));
    EXPECT_EQ(sales.first().body.value(QStringLiteral("device_seq")).toInteger(), 1);
    EXPECT_EQ(sales.first().body.value(QStringLiteral("amount_minor")).toInteger(), 2500);
    EXPECT_EQ(reopened.seatsSoldOffline(QStringLiteral("lease-1")), QStringList({QStringLiteral("F7"), QStringLiteral("F8")}));
    ASSERT_TRUE(reopened.answerOfflineSale(1, QStringLiteral("refused"), 422, "{}", {}, {}, QStringLiteral("price_mismatch: no")));
    EXPECT_EQ(reopened.unsettledSales(QStringLiteral("lease-1")), 1) << "a refused sale is not settled";
    ASSERT_TRUE(reopened.answerOfflineSale(1, QStringLiteral("booked"), 201, "{}", QStringLiteral("b"), QStringLiteral("MQ1"), {}));
    EXPECT_EQ(reopened.unsettledSales(QStringLiteral("lease-1")), 0);
}
