// SPDX-License-Identifier: AGPL-3.0-or-later
// Offline check-in against cached keys and revocations, and reconciliation of the journals with a real server.
#include "sync/apiclient.h"
#include "sync/localstore.h"
#include "sync/offlinecheckin.h"
#include "sync/reconciler.h"
#include "synctesthelpers.h"
#include "testserver.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::sync;
using namespace marquee::test;

#ifdef MARQUEE_SYNC_HAS_CHECKIN
namespace {

struct Door {
    QTemporaryDir dir;
    LocalStore store;
    TicketKeyPair keys;
    Door()
    {
        EXPECT_TRUE(store.open(dir.filePath(QStringLiteral("door.db"))));
        keys = *TicketCodec::generateKeyPair();
        EXPECT_TRUE(store.replacePublicKeys({{42, keys.publicKey, 1, {}}}));
        EXPECT_TRUE(store.setDeviceVenue(1));
    }
    QString ticket(qint64 showId, const QString &seat, QUuid id = QUuid::createUuid()) const { return signTicket(42, keys, showId, seat, id); }
    static QString signTicket(quint32 keyId, const TicketKeyPair &keys, qint64 showId, const QString &seat, QUuid id = QUuid::createUuid())
    {
        TicketPayload p;
        p.keyId = keyId;
        p.ticketId = id;
        p.showId = showId;
        p.seatId = seat;
        p.validFrom = QDateTime::currentSecsSinceEpoch() - 3600;
        p.validUntil = QDateTime::currentSecsSinceEpoch() + 3600;
        return TicketCodec::sign(p, keys.privateKey);
    }
};

} // namespace

TEST(OfflineCheckin, VerifiesSignaturesRevocationsShowAndSecondEntryWithoutTheServer)
{
    Door door;
    OfflineCheckin checkin(door.store);
    const QUuid id = QUuid::createUuid();
    const QString qr = door.ticket(7, QStringLiteral("A1"), id);
    ASSERT_FALSE(qr.isEmpty());

    const ScanOutcome first = checkin.scan(qr, 7);
    EXPECT_EQ(first.result, QStringLiteral("ok"));
    EXPECT_TRUE(first.admit());
    EXPECT_TRUE(first.recorded);
    EXPECT_EQ(checkin.scan(qr, 7).result, QStringLiteral("already_redeemed"));
    EXPECT_EQ(checkin.scan(door.ticket(8, QStringLiteral("A1")), 7).result, QStringLiteral("wrong_show"));

    // A forged signature and a key we never fetched.
    QString forged = door.ticket(7, QStringLiteral("A2"));
    forged[forged.size() - 2] = forged[forged.size() - 2] == QLatin1Char('A') ? QLatin1Char('B') : QLatin1Char('A');
    EXPECT_EQ(checkin.scan(forged, 7).result, QStringLiteral("invalid_signature"));
    TicketPayload other;
    other.keyId = 99;
    other.ticketId = QUuid::createUuid();
    other.showId = 7;
    other.seatId = QStringLiteral("A3");
    other.validFrom = QDateTime::currentSecsSinceEpoch() - 10;
    other.validUntil = QDateTime::currentSecsSinceEpoch() + 10;
    EXPECT_EQ(checkin.scan(TicketCodec::sign(other, TicketCodec::generateKeyPair()->privateKey), 7).result, QStringLiteral("unknown_key"));
    EXPECT_EQ(checkin.scan(QStringLiteral("not a ticket"), 7).result, QStringLiteral("malformed"));

    // Revoked through the cached revocation list.
    const QUuid revokedId = QUuid::createUuid();
    ASSERT_TRUE(door.store.addRevocations({{revokedId.toString(QUuid::WithoutBraces), QDateTime::currentDateTimeUtc(), QStringLiteral("refunded")}}, {}));
    EXPECT_EQ(checkin.scan(door.ticket(7, QStringLiteral("A4"), revokedId), 7).result, QStringLiteral("revoked"));

    // Outside the validity window, judged at the scan's real time.
    EXPECT_EQ(checkin.scan(door.ticket(7, QStringLiteral("A5")), 7, QDateTime::currentDateTimeUtc().addSecs(7200)).result, QStringLiteral("expired"));

    // Every scan is journaled with its nonce and time; each decodable one has its upload queued, nonce as key.
    const QList<CheckinScan> scans = door.store.scans();
    EXPECT_EQ(scans.size(), 8);
    const auto stored = door.store.scan(first.nonce);
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->ticketId, id.toString(QUuid::WithoutBraces));
    EXPECT_EQ(stored->scannedAt, first.scannedAt);
    const auto upload = door.store.actionByKey(first.nonce);
    ASSERT_TRUE(upload.has_value());
    EXPECT_EQ(upload->path, QStringLiteral("/api/v1/checkin"));
    EXPECT_EQ(upload->body.value(QStringLiteral("nonce")).toString(), first.nonce);
    EXPECT_EQ(upload->body.value(QStringLiteral("qr")).toString(), qr);
    EXPECT_EQ(door.store.pendingCount(), 7); // the malformed scan stays local
}

// A door of venue 1 with venue 2's genuine key in its cache (kept from before keys were given by venue, or put
// there by anyone who could write the cache): venue 2's ticket, correctly signed, is refused as for another venue,
// and so is every ticket while the device does not know its venue.
TEST(OfflineCheckin, ATicketOfAnotherVenueWithItsGenuineKeyIsRefused)
{
    Door door;
    const TicketKeyPair otherVenue = *TicketCodec::generateKeyPair();
    ASSERT_TRUE(door.store.replacePublicKeys({{42, door.keys.publicKey, 1, {}}, {77, otherVenue.publicKey, 2, {}}}));
    OfflineCheckin checkin(door.store);
    const QString theirs = Door::signTicket(77, otherVenue, 7, QStringLiteral("A1"));
    ASSERT_EQ(TicketCodec::verify(theirs, door.store.publicKeysById()).result, TicketCheck::Ok) << "genuinely signed";
    const ScanOutcome refused = checkin.scan(theirs, 7);
    EXPECT_EQ(refused.result, QStringLiteral("wrong_venue"));
    EXPECT_FALSE(refused.admit());
    EXPECT_TRUE(refused.recorded) << "journaled and uploaded like every decodable scan";
    EXPECT_EQ(checkin.scan(door.ticket(7, QStringLiteral("A2")), 7).result, QStringLiteral("ok")) << "its own venue's ticket";

    // The venue the server says this device is of decides: moved to venue 2, the same door admits the other one.
    ASSERT_TRUE(door.store.setDeviceVenue(2));
    EXPECT_EQ(checkin.scan(theirs, 7).result, QStringLiteral("ok"));
    EXPECT_EQ(checkin.scan(door.ticket(7, QStringLiteral("A3")), 7).result, QStringLiteral("wrong_venue"));
    // No venue said (a device never online since, or given none): nothing verifies offline.
    ASSERT_TRUE(door.store.setDeviceVenue(0));
    EXPECT_EQ(checkin.scan(door.ticket(7, QStringLiteral("A4")), 7).result, QStringLiteral("unknown_key"));
}

#endif // MARQUEE_SYNC_HAS_CHECKIN

TEST(Reconciler, VoidsRevokedTicketsKeepsRefundsDueAndSaysUnknownWhenTheServerCannotConfirm)
{
    TestServer server;
    const QString token = server.deviceToken();
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    ApiClient api(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.port())));
    api.setToken(token);

    TicketRecord revoked;
    revoked.ticketId = QStringLiteral("11111111-1111-1111-1111-111111111111");
    revoked.bookingRef = QStringLiteral("MQ-REFUND");
    revoked.showId = 1;
    revoked.seatId = QStringLiteral("A1");
    revoked.qr = QStringLiteral("MQ1.x.y");
    TicketRecord stranger = revoked;
    stranger.ticketId = QStringLiteral("22222222-2222-2222-2222-222222222222");
    stranger.bookingRef = QStringLiteral("MQ-NOBODY");
    ASSERT_TRUE(store.journalPrintedTickets({revoked, stranger}));
    ASSERT_TRUE(store.addRevocations({{revoked.ticketId, QDateTime::currentDateTimeUtc(), QStringLiteral("refunded")}}, {}));
    PaymentRecord lost{QStringLiteral("pi_lost"), QStringLiteral("00000000-0000-0000-0000-000000000001"), 2500, QStringLiteral("EUR"),
                       QStringLiteral("approved"), QStringLiteral("refund_due"), {}, {}, QStringLiteral("hold lost")};
    ASSERT_TRUE(store.recordPayment(lost));
    PaymentRecord declined = lost;
    declined.intentId = QStringLiteral("pi_declined");
    declined.terminalResult = QStringLiteral("declined");
    ASSERT_TRUE(store.recordPayment(declined));

    Reconciler reconciler(store, api);
    const ReconciliationReport report = reconciler.runBlocking();
    ASSERT_EQ(report.tickets.size(), 2);
    EXPECT_EQ(report.count(QStringLiteral("voided")), 1);
    EXPECT_EQ(report.count(QStringLiteral("unknown")), 1);
    EXPECT_EQ(store.ticket(revoked.ticketId)->reconciliation, QStringLiteral("voided"));
    EXPECT_EQ(store.ticket(stranger.ticketId)->reconciliation, QStringLiteral("unknown"));
    // Only terminal-approved payments are reconciled; a recorded refusal stays a refund due.
    ASSERT_EQ(report.payments.size(), 1);
    EXPECT_EQ(report.payments.first().state, QStringLiteral("refund_due"));
    EXPECT_TRUE(report.complete);

    // The manager reads the same report from the store.
    const auto saved = store.lastReport();
    ASSERT_TRUE(saved.has_value());
    const QJsonObject json = QJsonDocument::fromJson(*saved).object();
    EXPECT_EQ(json.value(QStringLiteral("summary")).toObject().value(QStringLiteral("tickets_voided")).toInt(), 1);
    EXPECT_EQ(json.value(QStringLiteral("payments")).toArray().size(), 1);
}

TEST(Reconciler, AnUnreachableServerLeavesTicketsUnknownAndTheReportIncomplete)
{
    QTemporaryDir dir;
    LocalStore store;
    ASSERT_TRUE(store.open(dir.filePath(QStringLiteral("kiosk.db"))));
    ApiClient api(QUrl(QStringLiteral("http://127.0.0.1:1"))); // nothing listens on port 1
    api.setTimeoutMs(2000);
    TicketRecord t;
    t.ticketId = QStringLiteral("33333333-3333-3333-3333-333333333333");
    t.bookingRef = QStringLiteral("MQ-X");
    t.showId = 1;
    t.seatId = QStringLiteral("A1");
    t.qr = QStringLiteral("MQ1.x.y");
    ASSERT_TRUE(store.journalPrintedTickets({t}));
    ASSERT_TRUE(store.recordPayment({QStringLiteral("pi_1"), QStringLiteral("o1"), 100, QStringLiteral("EUR"), QStringLiteral("approved"),
                                     QStringLiteral("awaiting_confirm")}));
    Reconciler reconciler(store, api);
    const ReconciliationReport report = reconciler.runBlocking();
    EXPECT_FALSE(report.complete);
    EXPECT_EQ(report.count(QStringLiteral("unknown")), 1);
    EXPECT_EQ(report.paymentCount(QStringLiteral("pending")), 1);
    EXPECT_EQ(store.ticket(t.ticketId)->reconciliation, QStringLiteral("unknown"));
}
