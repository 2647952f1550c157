// SPDX-License-Identifier: AGPL-3.0-or-later
// Delegated ticket signing against real PostgreSQL over real HTTP: a lease requested with a device key carries a
// delegation the venue key signed; the feed publishes it and its revocation; a sale reported with the tickets the
// device signed is booked with exactly those tickets, and forged or mismatching ones are refused with nothing
// changed; the door admits a device-signed ticket by its signature before and after the upload, and refuses one
// outside its delegation, forged, of an unknown delegation, or unreported after the lease ended.
#include "servertesthelpers.h"
#include "tilltesthelpers.h"

#include "core/isotime.h"
#include "core/ticketcodec.h"

#include <QJsonArray>
#include <QUuid>
#include <gtest/gtest.h>

using namespace marquee;
using namespace marquee::test;

namespace {

QString uuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}
QByteArray leasesPath(qint64 showId)
{
    return "/api/v1/shows/" + QByteArray::number(showId) + "/leases";
}
QByteArray leasePath(const QString &leaseId)
{
    return "/api/v1/leases/" + leaseId.toUtf8();
}
QByteArray salesPath(const QString &leaseId)
{
    return leasePath(leaseId) + "/sales";
}
QJsonObject scan(const QString &qr, const QDateTime &at = QDateTime::currentDateTimeUtc())
{
    return QJsonObject{{QStringLiteral("qr"), qr}, {QStringLiteral("nonce"), uuid()}, {QStringLiteral("scanned_at"), toIsoUtc(at)}};
}

struct Delegation : ::testing::Test {
    Delegation()
        : device(*TicketCodec::generateKeyPair())
    {
        // Starting in an hour: leases are still granted (return_by is 20 minutes before) and tickets valid now.
        showId = server.createShow(4, 6, QDateTime::currentDateTimeUtc().addSecs(3600), QDateTime::currentDateTimeUtc().addSecs(-60));
        till = server.client(server.deviceToken(QStringLiteral("till")));
        door = server.client(server.deviceToken(QStringLiteral("till")));
        manager = server.client(server.staffToken(QStringLiteral("manager")));
    }

    QHash<quint32, QByteArray> venueKeys()
    {
        QHash<quint32, QByteArray> keys;
        const HttpResult result = manager->get("/api/v1/keys");
        EXPECT_EQ(result.status, 200) << result.body.constData();
        for (const QJsonValue &key : result.jsonArray())
            keys.insert(quint32(key[QStringLiteral("key_id")].toInteger()), QByteArray::fromBase64(key[QStringLiteral("public_key")].toString().toLatin1()));
        return keys;
    }
    /** @brief A lease of @p seats with this test's device key; its answer. */
    QJsonObject leaseWithKey(const QStringList &seats, const QByteArray &publicKey = {}, const QByteArray &idempotencyKey = {})
    {
        QJsonObject body = seatsBody(seats);
        body.insert(QStringLiteral("device_public_key"), QString::fromLatin1((publicKey.isEmpty() ? device.publicKey : publicKey).toBase64()));
        const QByteArray key = idempotencyKey.isEmpty() ? uuid().toLatin1() : idempotencyKey;
        const HttpResult r = till->request("POST", leasesPath(showId), QJsonDocument(body).toJson(QJsonDocument::Compact),
                                           {{"Content-Type", "application/json"}, {"Idempotency-Key", key}});
        EXPECT_EQ(r.status, 201) << r.body.toStdString();
        return r.json();
    }
    TicketDelegation delegationOf(const QJsonObject &lease)
    {
        const auto delegation = DelegationCodec::fromJson(lease.value(QStringLiteral("delegation")).toObject());
        EXPECT_TRUE(delegation) << QJsonDocument(lease).toJson().toStdString();
        return delegation.value_or(TicketDelegation{});
    }
    /** @brief What the till signs offline for @p seat under @p d (the delegation's window unless given). */
    TicketPayload ticketFor(const TicketDelegation &d, const QString &seat, const QUuid &ticketId = QUuid::createUuid()) const
    {
        TicketPayload p;
        p.delegationId = d.delegationId;
        p.ticketId = ticketId;
        p.showId = d.showId;
        p.seatId = seat;
        p.validFrom = d.validFrom;
        p.validUntil = d.validUntil;
        return p;
    }
    QString sign(const TicketPayload &p, const QByteArray &privateKey = {}) const
    {
        return TicketCodec::sign(p, privateKey.isEmpty() ? device.privateKey : privateKey);
    }
    static QJsonObject ticketEntry(const TicketPayload &p, const QString &code)
    {
        return QJsonObject{{QStringLiteral("ticket_id"), p.ticketId.toString(QUuid::WithoutBraces)}, {QStringLiteral("seat_id"), p.seatId},
                           {QStringLiteral("code"), code}};
    }
    static QJsonObject sale(qint64 seq, const QStringList &seats, qint64 amount, const QJsonArray &tickets)
    {
        return QJsonObject{{QStringLiteral("device_seq"), seq},         {QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)},
                           {QStringLiteral("amount_minor"), amount},     {QStringLiteral("currency"), QStringLiteral("EUR")},
                           {QStringLiteral("tendered_minor"), amount},   {QStringLiteral("sold_at"), toIsoUtc(QDateTime::currentDateTimeUtc())},
                           {QStringLiteral("tickets"), tickets}};
    }
    QString result(const QString &qr, const QDateTime &at = QDateTime::currentDateTimeUtc())
    {
        const HttpResult r = door->post("/api/v1/checkin", scan(qr, at));
        EXPECT_EQ(r.status, 200) << r.body.constData();
        return r.json().value(QStringLiteral("result")).toString();
    }
    QJsonObject publishedDelegation(const QString &delegationId)
    {
        const HttpResult r = door->get("/api/v1/delegations");
        EXPECT_EQ(r.status, 200) << r.body.constData();
        for (const QJsonValue &entry : r.json().value(QStringLiteral("delegations")).toArray())
            if (entry[QStringLiteral("delegation_id")].toString() == delegationId)
                return entry.toObject();
        return {};
    }
    QString state()
    {
        return databaseState(server) + QLatin1Char('|')
               + server.scalar(QStringLiteral("SELECT concat_ws('/', (SELECT count(*) FROM seat_leases), (SELECT count(*) FROM lease_sales), "
                                              "(SELECT count(*) FROM orders), (SELECT count(*) FROM bookings), (SELECT count(*) FROM tickets), "
                                              "(SELECT count(*) FROM ticket_delegations))"))
                     .toString();
    }
    qint64 count(const QString &sql) { return server.scalar(sql).toLongLong(); }

    TestServer server;
    TicketKeyPair device;
    qint64 showId = 0;
    std::unique_ptr<HttpClient> till, door, manager;
};

} // namespace

TEST_F(Delegation, ALeaseWithADeviceKeyCarriesADelegationTheVenueKeySigned)
{
    const QJsonObject lease = leaseWithKey({QStringLiteral("A2"), QStringLiteral("A1")});
    const TicketDelegation d = delegationOf(lease);
    EXPECT_EQ(DelegationCodec::verify(d, venueKeys()), TicketCheck::Ok);
    EXPECT_EQ(d.devicePublicKey, device.publicKey);
    EXPECT_EQ(d.leaseId.toString(QUuid::WithoutBraces), lease.value(QStringLiteral("lease_id")).toString());
    EXPECT_EQ(d.showId, showId);
    EXPECT_EQ(d.deviceId, lease.value(QStringLiteral("device_id")).toInteger());
    EXPECT_EQ(d.seatIds, QStringList({QStringLiteral("A1"), QStringLiteral("A2")}));
    EXPECT_EQ(d.sellUntil, fromIso(lease.value(QStringLiteral("expires_at")).toString()).toSecsSinceEpoch());
    // The window of the show's own tickets: doors open three hours before the start, until the end.
    const qint64 startsAt = server.scalar(QStringLiteral("SELECT extract(epoch FROM starts_at)::bigint FROM shows WHERE show_id = %1").arg(showId)).toLongLong();
    EXPECT_EQ(d.validFrom, startsAt - 3 * 3600);
    EXPECT_GT(d.validUntil, startsAt);
    EXPECT_EQ(lease.value(QStringLiteral("delegation")).toObject().value(QStringLiteral("state")).toString(), QStringLiteral("active"));

    // GET of the lease carries it too; a lease without a key has none.
    const HttpResult read = till->get(leasePath(d.leaseId.toString(QUuid::WithoutBraces)));
    ASSERT_EQ(read.status, 200);
    EXPECT_EQ(DelegationCodec::fromJson(read.json().value(QStringLiteral("delegation")).toObject()), d);
    const HttpResult plain = till->post(leasesPath(showId), seatsBody({QStringLiteral("B1")}));
    ASSERT_EQ(plain.status, 201) << plain.body.constData();
    EXPECT_TRUE(plain.json().value(QStringLiteral("delegation")).isNull());
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM ticket_delegations")), 1);
}

TEST_F(Delegation, ARetriedLeaseRequestGetsTheSameDelegationAndABadKeyIsRefused)
{
    const QJsonObject first = leaseWithKey({QStringLiteral("A1")}, {}, "lease-key-1");
    const QJsonObject again = leaseWithKey({QStringLiteral("A1")}, {}, "lease-key-1");
    EXPECT_EQ(again.value(QStringLiteral("delegation")), first.value(QStringLiteral("delegation")));
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM ticket_delegations")), 1);
    // The same idempotency key with another device key is another request.
    QJsonObject other = seatsBody({QStringLiteral("A1")});
    other.insert(QStringLiteral("device_public_key"), QString::fromLatin1(TicketCodec::generateKeyPair()->publicKey.toBase64()));
    EXPECT_API_ERROR(till->request("POST", leasesPath(showId), QJsonDocument(other).toJson(QJsonDocument::Compact),
                                   {{"Content-Type", "application/json"}, {"Idempotency-Key", "lease-key-1"}}),
                     422, "idempotency_key_reused");

    const QString before = state();
    // The url-safe alphabet is not standard base64: a key with a '-' (the url-safe 62nd digit) in it. Always one,
    // so the case never passes by chance (a key's url-safe encoding often has neither '-' nor '_' and is then
    // the standard one too).
    QString urlSafe = QString::fromLatin1(device.publicKey.toBase64(QByteArray::Base64UrlEncoding));
    urlSafe[0] = QLatin1Char('-');
    for (const QJsonValue &bad : {QJsonValue(QStringLiteral("AAAA")), QJsonValue(urlSafe),
                                  QJsonValue(QString::fromLatin1(QByteArray(33, 'k').toBase64())), QJsonValue(42)}) {
        QJsonObject body = seatsBody({QStringLiteral("B2")});
        body.insert(QStringLiteral("device_public_key"), bad);
        EXPECT_API_ERROR(till->post(leasesPath(showId), body), 400, "invalid_device_public_key");
    }
    EXPECT_EQ(state(), before);
}

TEST_F(Delegation, TheFeedPublishesDelegationsAndTheirRevocationAndTheKeysFeedKeepsItsShape)
{
    const TicketDelegation revokedOne = delegationOf(leaseWithKey({QStringLiteral("A1")}));
    const TicketDelegation returnedOne = delegationOf(leaseWithKey({QStringLiteral("B1")}));
    const QString revokedId = revokedOne.delegationId.toString(QUuid::WithoutBraces);
    const QString returnedId = returnedOne.delegationId.toString(QUuid::WithoutBraces);

    const QJsonObject active = publishedDelegation(revokedId);
    EXPECT_EQ(active.value(QStringLiteral("state")).toString(), QStringLiteral("active"));
    EXPECT_TRUE(active.value(QStringLiteral("revoked_at")).isNull());
    EXPECT_EQ(DelegationCodec::fromJson(active), revokedOne);
    EXPECT_EQ(DelegationCodec::verify(*DelegationCodec::fromJson(active), venueKeys()), TicketCheck::Ok);

    // A manager revokes one lease, the till gives the other back: both delegations are revoked, and say why.
    ASSERT_EQ(manager->request("DELETE", leasePath(revokedOne.leaseId.toString(QUuid::WithoutBraces))).status, 200);
    ASSERT_EQ(till->request("DELETE", leasePath(returnedOne.leaseId.toString(QUuid::WithoutBraces))).status, 200);
    const QJsonObject revoked = publishedDelegation(revokedId);
    EXPECT_EQ(revoked.value(QStringLiteral("state")).toString(), QStringLiteral("revoked"));
    EXPECT_EQ(revoked.value(QStringLiteral("revoked_reason")).toString(), QStringLiteral("revoked"));
    EXPECT_TRUE(fromIso(revoked.value(QStringLiteral("revoked_at")).toString()).isValid());
    EXPECT_EQ(publishedDelegation(returnedId).value(QStringLiteral("revoked_reason")).toString(), QStringLiteral("returned"));
    // Revoking again changes nothing.
    const QString revokedAt = revoked.value(QStringLiteral("revoked_at")).toString();
    ASSERT_EQ(manager->request("DELETE", leasePath(revokedOne.leaseId.toString(QUuid::WithoutBraces))).status, 200);
    EXPECT_EQ(publishedDelegation(revokedId).value(QStringLiteral("revoked_at")).toString(), revokedAt);

    // GET /api/v1/keys is the array of keys it always was.
    const HttpResult keys = door->get("/api/v1/keys");
    ASSERT_EQ(keys.status, 200);
    ASSERT_EQ(keys.jsonArray().size(), 1);
    EXPECT_EQ(keys.jsonArray().first().toObject().keys(),
              QStringList({QStringLiteral("alg"), QStringLiteral("key_id"), QStringLiteral("not_after"), QStringLiteral("public_key"),
                           QStringLiteral("signing"), QStringLiteral("venue_id")}));
}

TEST_F(Delegation, ASaleWithTheTicketsTheDeviceSignedIsBookedWithExactlyThoseTickets)
{
    const TicketDelegation d = delegationOf(leaseWithKey({QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3")}));
    const QString leaseId = d.leaseId.toString(QUuid::WithoutBraces);
    const TicketPayload a1 = ticketFor(d, QStringLiteral("A1"));
    const TicketPayload a2 = ticketFor(d, QStringLiteral("A2"));
    const QString qr1 = sign(a1), qr2 = sign(a2);
    const QJsonObject body = sale(1, {QStringLiteral("A1"), QStringLiteral("A2")}, 2 * kStandard, QJsonArray{ticketEntry(a2, qr2), ticketEntry(a1, qr1)});
    const HttpResult sold = till->post(salesPath(leaseId), body);
    ASSERT_EQ(sold.status, 201) << sold.body.constData();
    const QString bookingId = sold.json().value(QStringLiteral("booking_id")).toString();

    const HttpResult booking = manager->get("/api/v1/bookings/" + bookingId.toUtf8());
    ASSERT_EQ(booking.status, 200) << booking.body.constData();
    QMap<QString, QString> tickets;
    for (const QJsonValue &t : booking.json().value(QStringLiteral("tickets")).toArray())
        tickets.insert(t[QStringLiteral("ticket_id")].toString(), t[QStringLiteral("qr")].toString());
    EXPECT_EQ(tickets, (QMap<QString, QString>{{a1.ticketId.toString(QUuid::WithoutBraces), qr1}, {a2.ticketId.toString(QUuid::WithoutBraces), qr2}}));
    // On record as the delegation's, and no venue-signed second code for these seats.
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM tickets WHERE booking_id = '%1' AND delegation_id = '%2' AND key_id IS NULL")
                        .arg(bookingId, d.delegationId.toString(QUuid::WithoutBraces))),
              2);
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM tickets WHERE show_id = %1").arg(showId)), 2);
    EXPECT_EQ(publishedDelegation(d.delegationId.toString(QUuid::WithoutBraces)).value(QStringLiteral("ticket_ids")).toArray().size(), 2);

    // A retry of the same upload: the same answer, nothing new.
    const QString before = state();
    const HttpResult replay = till->post(salesPath(leaseId), body);
    EXPECT_EQ(replay.status, 201);
    EXPECT_EQ(replay.json(), sold.json());
    EXPECT_EQ(state(), before);

    // A sale without tickets under the same lease still gets the venue's tickets, as before delegation.
    const HttpResult plain = till->post(salesPath(leaseId), sale(2, {QStringLiteral("A3")}, kStandard, {}));
    ASSERT_EQ(plain.status, 201) << plain.body.constData();
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM tickets WHERE booking_id = '%1' AND key_id IS NOT NULL")
                        .arg(plain.json().value(QStringLiteral("booking_id")).toString())),
              1);
}

TEST_F(Delegation, ForgedOrMismatchingDeviceTicketsAreRefusedAndChangeNothing)
{
    const TicketDelegation d = delegationOf(leaseWithKey({QStringLiteral("A1"), QStringLiteral("A2")}));
    const TicketDelegation other = delegationOf(leaseWithKey({QStringLiteral("B1")}));
    const QString leaseId = d.leaseId.toString(QUuid::WithoutBraces);
    const QString before = state();
    const auto refusedBecause = [&](const QJsonArray &tickets, const char *reason, const QStringList &seats = {QStringLiteral("A1")}) {
        const HttpResult r = till->post(salesPath(leaseId), sale(1, seats, kStandard * seats.size(), tickets));
        EXPECT_API_ERROR(r, 422, "delegated_ticket_invalid");
        EXPECT_EQ(r.json().value(QStringLiteral("reason")).toString().toStdString(), std::string(reason)) << r.body.constData();
    };
    const TicketPayload a1 = ticketFor(d, QStringLiteral("A1"));
    const TicketKeyPair attacker = *TicketCodec::generateKeyPair();
    refusedBecause({ticketEntry(a1, sign(a1, attacker.privateKey))}, "invalid_signature");
    refusedBecause({ticketEntry(a1, sign(ticketFor(other, QStringLiteral("A1"), a1.ticketId)))}, "other_delegation");
    refusedBecause({ticketEntry(a1, sign(ticketFor(d, QStringLiteral("B1"), a1.ticketId)))}, "seat_not_delegated");
    refusedBecause({ticketEntry(a1, sign(ticketFor(d, QStringLiteral("A2"), a1.ticketId)))}, "seat_mismatch");
    refusedBecause({ticketEntry(a1, sign(ticketFor(d, QStringLiteral("A1"))))}, "ticket_id_mismatch");
    TicketPayload longer = a1;
    longer.validUntil += 3600;
    refusedBecause({ticketEntry(a1, sign(longer))}, "outside_window");
    TicketPayload otherShow = a1;
    otherShow.showId = showId + 1000;
    refusedBecause({ticketEntry(a1, sign(otherShow))}, "other_show");
    refusedBecause({ticketEntry(a1, QStringLiteral("MQ2.garbage.garbage"))}, "malformed");
    // Not exactly one device-signed ticket per seat of the sale.
    const HttpResult missing = till->post(salesPath(leaseId), sale(1, {QStringLiteral("A1"), QStringLiteral("A2")}, 2 * kStandard,
                                                                   QJsonArray{ticketEntry(a1, sign(a1))}));
    EXPECT_API_ERROR(missing, 422, "delegated_tickets_incomplete");
    EXPECT_EQ(stringList(missing.json().value(QStringLiteral("missing_seats"))), QStringList{QStringLiteral("A2")});
    // A ticket id the server already has for something else (a venue ticket of another booking).
    const HttpResult venueSale = till->post(salesPath(other.leaseId.toString(QUuid::WithoutBraces)), sale(1, {QStringLiteral("B1")}, kStandard, {}));
    ASSERT_EQ(venueSale.status, 201) << venueSale.body.constData();
    const QString taken = server.scalar(QStringLiteral("SELECT ticket_id::text FROM tickets WHERE seat_id = 'B1'")).toString();
    const QString beforeTaken = state();
    refusedBecause({ticketEntry(ticketFor(d, QStringLiteral("A1"), QUuid::fromString(taken)), sign(ticketFor(d, QStringLiteral("A1"), QUuid::fromString(taken))))},
                   "ticket_id_taken");
    EXPECT_EQ(state(), beforeTaken);
    EXPECT_NE(before, beforeTaken); // the venue sale did change things; everything refused did not

    // A lease without a delegation does not take device-signed codes either.
    const HttpResult plain = till->post(leasesPath(showId), seatsBody({QStringLiteral("A3")}));
    ASSERT_EQ(plain.status, 201);
    const HttpResult noDelegation = till->post(salesPath(plain.json().value(QStringLiteral("lease_id")).toString()),
                                               sale(1, {QStringLiteral("A3")}, kStandard, QJsonArray{ticketEntry(ticketFor(d, QStringLiteral("A3")), sign(ticketFor(d, QStringLiteral("A3"))))}));
    EXPECT_API_ERROR(noDelegation, 422, "delegated_ticket_invalid");
    EXPECT_EQ(noDelegation.json().value(QStringLiteral("reason")).toString(), QStringLiteral("no_delegation"));

    // And the genuine one goes through afterwards.
    ASSERT_EQ(till->post(salesPath(leaseId), sale(1, {QStringLiteral("A1")}, kStandard, QJsonArray{ticketEntry(a1, sign(a1))})).status, 201);
}

TEST_F(Delegation, TheDoorAdmitsADeviceTicketBeforeItsSaleIsUploadedAndTheUploadStillBooksIt)
{
    const TicketDelegation d = delegationOf(leaseWithKey({QStringLiteral("A1"), QStringLiteral("A2")}));
    const TicketPayload a1 = ticketFor(d, QStringLiteral("A1"));
    const QString qr = sign(a1);

    EXPECT_EQ(result(qr), QStringLiteral("ok"));
    EXPECT_EQ(result(qr), QStringLiteral("already_redeemed"));
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM checkin_firsts WHERE ticket_id = '%1'").arg(a1.ticketId.toString(QUuid::WithoutBraces))), 1);

    const HttpResult sold = till->post(salesPath(d.leaseId.toString(QUuid::WithoutBraces)),
                                       sale(1, {QStringLiteral("A1")}, kStandard, QJsonArray{ticketEntry(a1, qr)}));
    ASSERT_EQ(sold.status, 201) << sold.body.constData();
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT qr FROM tickets WHERE booking_id = '%1'").arg(sold.json().value(QStringLiteral("booking_id")).toString())).toString(), qr);
    EXPECT_EQ(result(qr), QStringLiteral("already_redeemed")) << "the booking's ticket is the one admitted before";

    // Refused, each for its own reason.
    EXPECT_EQ(result(sign(ticketFor(d, QStringLiteral("B4")))), QStringLiteral("outside_delegation"));
    const TicketKeyPair attacker = *TicketCodec::generateKeyPair();
    EXPECT_EQ(result(sign(ticketFor(d, QStringLiteral("A2")), attacker.privateKey)), QStringLiteral("invalid_signature"));
    TicketDelegation unknown = d;
    unknown.delegationId = QUuid::createUuid();
    EXPECT_EQ(result(sign(ticketFor(unknown, QStringLiteral("A2")))), QStringLiteral("unknown_delegation"));
    EXPECT_EQ(result(sign(ticketFor(d, QStringLiteral("A2"))), QDateTime::fromSecsSinceEpoch(d.validFrom - 60, Qt::UTC)), QStringLiteral("not_yet_valid"));
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM checkins WHERE result IN ('outside_delegation', 'invalid_signature', 'unknown_delegation')")), 3);
}

TEST_F(Delegation, AfterTheLeaseIsRevokedOnlyItsReportedTicketsEnter)
{
    const TicketDelegation d = delegationOf(leaseWithKey({QStringLiteral("A1"), QStringLiteral("A2")}));
    const TicketPayload reported = ticketFor(d, QStringLiteral("A1"));
    const QString reportedQr = sign(reported);
    ASSERT_EQ(till->post(salesPath(d.leaseId.toString(QUuid::WithoutBraces)),
                         sale(1, {QStringLiteral("A1")}, kStandard, QJsonArray{ticketEntry(reported, reportedQr)}))
                  .status,
              201);
    const TicketPayload unreported = ticketFor(d, QStringLiteral("A2"));
    const QString unreportedQr = sign(unreported);

    ASSERT_EQ(manager->request("DELETE", leasePath(d.leaseId.toString(QUuid::WithoutBraces))).status, 200);
    EXPECT_EQ(result(unreportedQr), QStringLiteral("delegation_revoked"));
    EXPECT_EQ(result(reportedQr), QStringLiteral("ok"));

    // The till reports the sale it made before the revocation: then that ticket enters too.
    ASSERT_EQ(till->post(salesPath(d.leaseId.toString(QUuid::WithoutBraces)),
                         sale(2, {QStringLiteral("A2")}, kStandard, QJsonArray{ticketEntry(unreported, unreportedQr)}))
                  .status,
              201);
    EXPECT_EQ(result(unreportedQr), QStringLiteral("ok"));
}

TEST_F(Delegation, ADeviceTicketOfASeatBookedWithAnotherTicketIsRefused)
{
    const TicketDelegation d = delegationOf(leaseWithKey({QStringLiteral("A1")}));
    // The till printed a device ticket, but reported the sale without it: the booking has the venue's ticket.
    const QString printed = sign(ticketFor(d, QStringLiteral("A1")));
    ASSERT_EQ(till->post(salesPath(d.leaseId.toString(QUuid::WithoutBraces)), sale(1, {QStringLiteral("A1")}, kStandard, {})).status, 201);
    EXPECT_EQ(result(printed), QStringLiteral("revoked"));
    const QString venueQr = server.scalar(QStringLiteral("SELECT qr FROM tickets WHERE seat_id = 'A1'")).toString();
    EXPECT_EQ(result(venueQr), QStringLiteral("ok"));
}
