// SPDX-License-Identifier: AGPL-3.0-or-later
// The offline door and device-signed tickets: a till's DeviceTicketSigner signs under its delegation, the door
// verifies against the venue's delegations it cached (real SQLite, real key files; and against a real server
// whose delegations feed the door follows).
#include "sync/apiclient.h"
#include "sync/deviceticketsigner.h"
#include "sync/localstore.h"
#include "sync/offlinecheckin.h"
#include "sync/syncengine.h"
#include "synctesthelpers.h"
#include "testserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::sync;
using namespace marquee::test;

namespace {

constexpr qint64 kVenue = 1;
constexpr quint32 kVenueKeyId = 42;
constexpr qint64 kShow = 9;

struct Device {
    QTemporaryDir dir;
    LocalStore store;
    explicit Device(const QString &name, const QByteArray &venuePublicKey)
    {
        EXPECT_TRUE(store.open(dir.filePath(name)));
        EXPECT_TRUE(store.replacePublicKeys({{kVenueKeyId, venuePublicKey, kVenue, {}}}));
        EXPECT_TRUE(store.setDeviceVenue(kVenue));
    }
};

DelegationRecord cached(const TicketDelegation &d, const QDateTime &revokedAt = {}, const QStringList &reported = {})
{
    DelegationRecord record;
    record.delegationId = d.delegationId.toString(QUuid::WithoutBraces);
    record.leaseId = d.leaseId.toString(QUuid::WithoutBraces);
    record.document = DelegationCodec::toJson(d);
    record.revokedAt = revokedAt;
    record.reportedTicketIds = reported;
    return record;
}

QByteArray deviceSeed(const DeviceTicketSigner &signer)
{
    QFile file(signer.keyPath());
    EXPECT_TRUE(file.open(QIODevice::ReadOnly));
    return file.readAll();
}

struct OfflineDoorWithDelegations : ::testing::Test {
    TicketKeyPair venue = *TicketCodec::generateKeyPair();
    Device till{QStringLiteral("till.db"), venue.publicKey};
    Device door{QStringLiteral("door.db"), venue.publicKey};
    DeviceTicketSigner signer{till.store};
    TicketDelegation delegation;

    void SetUp() override
    {
        ASSERT_TRUE(signer.open()) << signer.errorString().toStdString();
        delegation = lease({QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3")});
        ASSERT_TRUE(signer.accept(DelegationCodec::toJson(delegation)).ok());
    }
    /** @brief What the server grants: a delegation of @p seats to the till's key, signed with @p signingKey. */
    TicketDelegation lease(const QStringList &seats, const QByteArray &signingKey = {})
    {
        const qint64 now = QDateTime::currentSecsSinceEpoch();
        TicketDelegation d;
        d.keyId = kVenueKeyId;
        d.delegationId = QUuid::createUuid();
        d.leaseId = QUuid::createUuid();
        d.deviceId = 5;
        d.showId = kShow;
        d.devicePublicKey = signer.publicKeyBytes();
        d.seatIds = DelegationCodec::canonicalSeats(seats);
        d.validFrom = now - 3600;
        d.validUntil = now + 3 * 3600;
        d.sellUntil = now + 2 * 3600;
        EXPECT_TRUE(DelegationCodec::sign(d, signingKey.isEmpty() ? venue.privateKey : signingKey));
        return d;
    }
    QString signSeat(const QString &seat)
    {
        const SignOutcome signedTicket = signer.sign(delegation.leaseId.toString(QUuid::WithoutBraces), kShow, seat);
        EXPECT_TRUE(signedTicket.ok()) << signedTicket.message.toStdString();
        return signedTicket.qr;
    }
    /** @brief A ticket the device key signs directly, past the signer's checks: what a tampered till could make. */
    QString forgeWithDeviceKey(const QString &seat, qint64 showId = kShow)
    {
        TicketPayload p;
        p.delegationId = delegation.delegationId;
        p.ticketId = QUuid::createUuid();
        p.showId = showId;
        p.seatId = seat;
        p.validFrom = delegation.validFrom;
        p.validUntil = delegation.validUntil;
        return TicketCodec::sign(p, deviceSeed(signer));
    }
};

} // namespace

TEST_F(OfflineDoorWithDelegations, AdmitsADeviceTicketOfItsDelegationOnceAndRefusesTheRestEachForItsReason)
{
    ASSERT_TRUE(door.store.replaceVenueDelegations({cached(delegation)}));
    OfflineCheckin checkin(door.store);
    const QString qr = signSeat(QStringLiteral("A1"));

    const ScanOutcome first = checkin.scan(qr, kShow);
    EXPECT_EQ(first.result, QStringLiteral("ok"));
    EXPECT_TRUE(first.ticket.isDelegated());
    EXPECT_EQ(first.ticket.seatId, QStringLiteral("A1"));
    EXPECT_TRUE(first.recorded);
    EXPECT_EQ(checkin.scan(qr, kShow).result, QStringLiteral("already_redeemed"));
    // The scan's upload is queued like any other: the server judges across doors.
    EXPECT_EQ(door.store.pendingCount(), 2);

    // A seat outside the delegation, signed by the very device key: a device never gets a seat it was not leased.
    EXPECT_EQ(checkin.scan(forgeWithDeviceKey(QStringLiteral("B7")), kShow).result, QStringLiteral("outside_delegation"));
    EXPECT_EQ(checkin.scan(forgeWithDeviceKey(QStringLiteral("A2"), kShow + 1), 0).result, QStringLiteral("outside_delegation"));
    // Signed by another key than the delegation's.
    TicketPayload forged = TicketCodec::verify(qr, {}, {{delegation.delegationId, delegation.devicePublicKey}}).payload;
    forged.seatId = QStringLiteral("A2");
    EXPECT_EQ(checkin.scan(TicketCodec::sign(forged, TicketCodec::generateKeyPair()->privateKey), kShow).result, QStringLiteral("invalid_signature"));
    // A delegation this door does not know.
    forged.delegationId = QUuid::createUuid();
    EXPECT_EQ(checkin.scan(TicketCodec::sign(forged, deviceSeed(signer)), kShow).result, QStringLiteral("unknown_delegation"));
    // The door's own show.
    EXPECT_EQ(checkin.scan(signSeat(QStringLiteral("A2")), kShow + 1).result, QStringLiteral("wrong_show"));
    EXPECT_EQ(checkin.scan(signSeat(QStringLiteral("A2")), kShow).result, QStringLiteral("ok"));
}

TEST_F(OfflineDoorWithDelegations, ARevokedDelegationAdmitsOnlyTheTicketsOfReportedSales)
{
    const QString reported = signSeat(QStringLiteral("A1"));
    const QString unreported = signSeat(QStringLiteral("A2"));
    const QString reportedId = TicketCodec::verify(reported, {}, {{delegation.delegationId, delegation.devicePublicKey}})
                                   .payload.ticketId.toString(QUuid::WithoutBraces);
    ASSERT_TRUE(door.store.replaceVenueDelegations({cached(delegation, QDateTime::currentDateTimeUtc(), {reportedId})}));
    OfflineCheckin checkin(door.store);
    EXPECT_EQ(checkin.scan(unreported, kShow).result, QStringLiteral("delegation_revoked"));
    EXPECT_EQ(checkin.scan(reported, kShow).result, QStringLiteral("ok"));

    // A reported ticket that was refunded since is on the revocation list like any other.
    ASSERT_TRUE(door.store.addRevocations({{reportedId, QDateTime::currentDateTimeUtc(), QStringLiteral("cancelled")}}, QStringLiteral("1")));
    EXPECT_EQ(checkin.scan(reported, kShow).result, QStringLiteral("revoked"));
}

TEST_F(OfflineDoorWithDelegations, ADelegationTheVenueKeyDidNotSignVouchesForNothing)
{
    // A cache row that is not what the venue signed (altered seats, or another key's signature).
    TicketDelegation altered = delegation;
    altered.seatIds = {QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3"), QStringLiteral("A4")};
    ASSERT_TRUE(door.store.replaceVenueDelegations({cached(altered)}));
    OfflineCheckin checkin(door.store);
    const QString qr = signSeat(QStringLiteral("A1"));
    EXPECT_EQ(checkin.scan(qr, kShow).result, QStringLiteral("unknown_delegation"));

    // A door of another venue, or with no venue yet, knows no delegation at all.
    ASSERT_TRUE(door.store.replaceVenueDelegations({cached(delegation)}));
    ASSERT_TRUE(door.store.setDeviceVenue(2));
    EXPECT_EQ(checkin.scan(qr, kShow).result, QStringLiteral("unknown_delegation"));
    ASSERT_TRUE(door.store.setDeviceVenue(kVenue));
    EXPECT_EQ(checkin.scan(qr, kShow).result, QStringLiteral("ok"));
}

// The whole way with a real server: the till leases with its key over HTTP and keeps the delegation; the door
// follows the server's delegations feed, admits the till's ticket offline, and after the manager revokes the lease
// (and the door refreshed) refuses a ticket whose sale was never reported.
TEST(DelegatedTicketsEndToEnd, TheDoorFollowsTheServersDelegationsAndItsRevocation)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3600), QDateTime::currentDateTimeUtc().addSecs(-60));
    const QString tillToken = server.deviceToken(QStringLiteral("till"));
    const QString doorToken = server.deviceToken(QStringLiteral("till"));
    const QUrl url(QStringLiteral("http://127.0.0.1:%1").arg(server.port()));

    QTemporaryDir dir;
    LocalStore tillStore;
    ASSERT_TRUE(tillStore.open(dir.filePath(QStringLiteral("till.db"))));
    ApiClient tillApi(url);
    tillApi.setToken(tillToken);
    SyncEngine::Options options;
    options.probeIntervalMs = 100;
    options.feedIntervalMs = 300;
    SyncEngine tillEngine(tillStore, tillApi, options);
    tillEngine.start();
    ASSERT_TRUE(waitUntil([&] { return !tillStore.publicKeysById().isEmpty() || tillStore.deviceVenue() > 0; }, 20000));
    DeviceTicketSigner signer(tillStore);
    ASSERT_TRUE(signer.open());

    // The first lease makes the venue's signing key; the till's key cache then needs it before it accepts.
    const ApiResult leased = tillApi.requestBlocking(
        QStringLiteral("POST"), QStringLiteral("/api/v1/shows/%1/leases").arg(showId),
        QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A1"), QStringLiteral("A2")}}, {QStringLiteral("device_public_key"), signer.publicKey()}},
        QStringLiteral("lease-1"));
    ASSERT_EQ(leased.status, 201) << leased.describe().toStdString();
    const QJsonObject delegationJson = leased.json().value(QStringLiteral("delegation")).toObject();
    tillEngine.refreshFeeds();
    ASSERT_TRUE(waitUntil([&] { return signer.accept(delegationJson).ok(); }, 20000));
    const QString leaseId = leased.json().value(QStringLiteral("lease_id")).toString();
    const SignOutcome sold = signer.sign(leaseId, showId, QStringLiteral("A1"));
    ASSERT_TRUE(sold.ok()) << sold.message.toStdString();
    const SignOutcome notReported = signer.sign(leaseId, showId, QStringLiteral("A2"));
    ASSERT_TRUE(notReported.ok());
    EXPECT_EQ(signer.sign(leaseId, showId, QStringLiteral("B1")).refusal, SignRefusal::SeatNotDelegated);

    LocalStore doorStore;
    ASSERT_TRUE(doorStore.open(dir.filePath(QStringLiteral("door.db"))));
    ApiClient doorApi(url);
    doorApi.setToken(doorToken);
    SyncEngine doorEngine(doorStore, doorApi, options);
    doorEngine.start();
    ASSERT_TRUE(waitUntil([&] { return doorStore.venueDelegations().size() == 1; }, 20000)) << "the door caches the venue's delegations";
    OfflineCheckin checkin(doorStore); // deciding on its own, as when the link is down
    EXPECT_EQ(checkin.scan(sold.qr, showId).result, QStringLiteral("ok"));

    // The till reports the first sale (with its ticket), then the manager revokes the lease. Both rows of a
    // two-row test show are its premium tier, so A1 costs the premium price.
    constexpr qint64 kPremiumPriceMinor = 1800;
    const ApiResult reported = tillApi.requestBlocking(
        QStringLiteral("POST"), QStringLiteral("/api/v1/leases/%1/sales").arg(leaseId),
        QJsonObject{{QStringLiteral("device_seq"), 1},
                    {QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A1")}},
                    {QStringLiteral("amount_minor"), kPremiumPriceMinor},
                    {QStringLiteral("currency"), QStringLiteral("EUR")},
                    {QStringLiteral("tendered_minor"), kPremiumPriceMinor},
                    {QStringLiteral("sold_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
                    {QStringLiteral("tickets"), QJsonArray{QJsonObject{{QStringLiteral("ticket_id"), sold.ticketId},
                                                                       {QStringLiteral("seat_id"), QStringLiteral("A1")},
                                                                       {QStringLiteral("code"), sold.qr}}}}});
    ASSERT_EQ(reported.status, 201) << reported.describe().toStdString();
    ASSERT_EQ(server.client(server.staffToken(QStringLiteral("manager")))->del("/api/v1/leases/" + leaseId.toUtf8()).status, 200);
    doorEngine.refreshFeeds();
    ASSERT_TRUE(waitUntil([&] {
        const auto record = doorStore.venueDelegations();
        return record.size() == 1 && record.first().revokedAt.isValid();
    }, 20000));
    EXPECT_EQ(doorStore.venueDelegations().first().reportedTicketIds, QStringList{sold.ticketId});
    EXPECT_EQ(checkin.scan(notReported.qr, showId).result, QStringLiteral("delegation_revoked"));
    EXPECT_EQ(checkin.scan(sold.qr, showId).result, QStringLiteral("already_redeemed")) << "admitted here before";
}
