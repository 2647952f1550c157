// SPDX-License-Identifier: AGPL-3.0-or-later
// Signed tickets: TicketRepository inside a caller's transaction, keys and rotation, revocations.
#include "testserver.h"

#include "core/keyseal.h"
#include "core/ticketcodec.h"
#include "startup/marqueeserver.h"
#include "store/database.h"
#include "store/ticketrepository.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QProcess>
#include <QSet>
#include <QSqlQuery>
#include <QUuid>
#include <QSqlError>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace marquee;
using namespace marquee::test;

namespace {

QString newBookingId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

/** @brief Issue tickets in a transaction of our own, committed, as the orders code does inside confirm. */
std::optional<QList<store::IssuedTicket>> issue(TestServer &server, const QString &bookingId, qint64 showId, const QStringList &seats)
{
    QSqlDatabase db = server.context().database.connection();
    store::Transaction transaction(db);
    auto tickets = server.context().tickets.issueTickets(db, bookingId, showId, seats);
    if (!tickets || !transaction.commit())
        return std::nullopt;
    return tickets;
}

QHash<quint32, QByteArray> keysFromApi(TestServer &server)
{
    QHash<quint32, QByteArray> keys;
    // A session at no device: every venue's keys (a device is given its own venue's only; tst_checkin.cpp).
    const HttpResult result = server.client(server.staffToken(QStringLiteral("manager")))->get("/api/v1/keys");
    EXPECT_EQ(result.status, 200) << result.body.constData();
    for (const QJsonValue &key : result.jsonArray()) {
        EXPECT_EQ(key[QStringLiteral("alg")].toString(), QStringLiteral("Ed25519"));
        keys.insert(quint32(key[QStringLiteral("key_id")].toInteger()),
                    QByteArray::fromBase64(key[QStringLiteral("public_key")].toString().toLatin1()));
    }
    return keys;
}

qint64 count(TestServer &server, const QString &sql)
{
    return server.scalar(sql).toLongLong();
}

/** @brief What a till does for a cash sale: hold, order with cash, confirm; the confirm answer (or the first failure). */
HttpResult sellForCash(HttpClient &till, qint64 showId, const QStringList &seats)
{
    const HttpResult hold = till.post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                      QJsonObject{{QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)}});
    if (hold.status != 200)
        return hold;
    const HttpResult order = till.post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), hold.json()[QStringLiteral("hold_id")]},
                                                                     {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    if (order.status != 201)
        return order;
    return till.post("/api/v1/orders/" + order.json()[QStringLiteral("order_id")].toString().toLatin1() + "/confirm",
                     QJsonObject{{QStringLiteral("payment_intent_id"), order.json()[QStringLiteral("payment_intent_id")]}});
}

} // namespace

TEST(Tickets, IssueSignsOneTicketPerSeatVerifiableWithThePublishedKey)
{
    TestServer server;
    const qint64 showId = server.createShow(2, 4);
    const QString booking = newBookingId();
    const auto tickets = issue(server, booking, showId, {QStringLiteral("A2"), QStringLiteral("A1")});
    ASSERT_TRUE(tickets);
    ASSERT_EQ(tickets->size(), 2);
    EXPECT_EQ(tickets->at(0).seatId, QStringLiteral("A1"));
    EXPECT_EQ(tickets->at(1).seatId, QStringLiteral("A2"));

    const auto keys = keysFromApi(server);
    ASSERT_EQ(keys.size(), 1);
    for (const store::IssuedTicket &ticket : *tickets) {
        const TicketVerification v = TicketCodec::verify(ticket.qr, keys);
        EXPECT_EQ(v.result, TicketCheck::Ok) << ticket.qr.toStdString();
        EXPECT_EQ(v.payload.ticketId, QUuid::fromString(ticket.ticketId));
        EXPECT_EQ(v.payload.showId, showId);
        EXPECT_EQ(v.payload.seatId, ticket.seatId);
        // Valid from doors-open (3 h before the start) until the end (start + 100 min runtime).
        const qint64 starts = server.scalar(QStringLiteral("SELECT extract(epoch FROM starts_at)::bigint FROM shows WHERE show_id = %1").arg(showId)).toLongLong();
        EXPECT_EQ(v.payload.validFrom, starts - 3 * 3600);
        EXPECT_EQ(v.payload.validUntil, starts + 100 * 60);
    }
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM tickets WHERE state = 'valid' AND booking_id = '%1'").arg(booking)), 2);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'ticket.issued' AND aggregate_id = '%1'").arg(booking)), 1);
    const auto stored = server.context().tickets.validTicketsOfBooking(booking);
    ASSERT_TRUE(stored);
    ASSERT_EQ(stored->size(), 2);
    EXPECT_EQ(stored->at(0).qr, tickets->at(0).qr);

    // A second show at the same venue would reuse the key; another venue gets its own.
    const qint64 otherShow = server.createShow(1, 2);
    ASSERT_TRUE(issue(server, newBookingId(), otherShow, {QStringLiteral("A1")}));
    EXPECT_EQ(keysFromApi(server).size(), 2);
}

TEST(Tickets, RefusedIssueLeavesNothingBehind)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    ASSERT_TRUE(issue(server, newBookingId(), showId, {QStringLiteral("A1")}));
    const qint64 before = count(server, QStringLiteral("SELECT count(*) FROM tickets")) * 1000 + count(server, QStringLiteral("SELECT count(*) FROM outbox"));

    // A seat that already has a valid ticket, an unknown seat, an unknown show, a bad booking id, duplicates.
    EXPECT_FALSE(issue(server, newBookingId(), showId, {QStringLiteral("A2"), QStringLiteral("A1")}));
    EXPECT_FALSE(issue(server, newBookingId(), showId, {QStringLiteral("Z9")}));
    EXPECT_FALSE(issue(server, newBookingId(), showId + 1000, {QStringLiteral("A1")}));
    EXPECT_FALSE(issue(server, QStringLiteral("not-a-uuid"), showId, {QStringLiteral("A3")}));
    EXPECT_FALSE(issue(server, newBookingId(), showId, {QStringLiteral("A3"), QStringLiteral("A3")}));
    EXPECT_FALSE(issue(server, newBookingId(), showId, {}));
    const qint64 after = count(server, QStringLiteral("SELECT count(*) FROM tickets")) * 1000 + count(server, QStringLiteral("SELECT count(*) FROM outbox"));
    EXPECT_EQ(before, after);
}

TEST(Tickets, RevokeBookingWritesRevocationsAndAnEventOnce)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    const QString booking = newBookingId();
    const auto tickets = issue(server, booking, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    ASSERT_TRUE(tickets);

    for (int attempt = 0; attempt < 2; ++attempt) {
        QSqlDatabase db = server.context().database.connection();
        store::Transaction transaction(db);
        ASSERT_TRUE(server.context().tickets.revokeTicketsOfBooking(db, booking, QStringLiteral("cancelled")));
        ASSERT_TRUE(transaction.commit());
    }
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM tickets WHERE state = 'revoked' AND reason = 'cancelled'")), 2);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM revocations")), 2);
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'ticket.revoked'")), 1);
    const auto valid = server.context().tickets.validTicketsOfBooking(booking);
    ASSERT_TRUE(valid);
    EXPECT_TRUE(valid->isEmpty());

    // The seats can be ticketed again (for a new booking) once the old tickets are revoked.
    EXPECT_TRUE(issue(server, newBookingId(), showId, {QStringLiteral("A1")}));

    // A rolled-back revoke changes nothing.
    const QString other = newBookingId();
    ASSERT_TRUE(issue(server, other, showId, {QStringLiteral("A3")}));
    {
        QSqlDatabase db = server.context().database.connection();
        store::Transaction transaction(db);
        ASSERT_TRUE(server.context().tickets.revokeTicketsOfBooking(db, other, QStringLiteral("cancelled")));
    }
    EXPECT_EQ(server.context().tickets.validTicketsOfBooking(other)->size(), 1);
}

TEST(Tickets, ReissueRevokesTheOldQrAndSignsANewOne)
{
    TestServer server;
    const qint64 showId = server.createShow(1, 4);
    const QString booking = newBookingId();
    const auto tickets = issue(server, booking, showId, {QStringLiteral("A4")});
    ASSERT_TRUE(tickets);
    const store::IssuedTicket old = tickets->first();

    QSqlDatabase db = server.context().database.connection();
    std::optional<store::IssuedTicket> fresh;
    {
        store::Transaction transaction(db);
        fresh = server.context().tickets.reissueTicket(db, old.ticketId, QStringLiteral("reprint"));
        ASSERT_TRUE(fresh);
        ASSERT_TRUE(transaction.commit());
    }
    EXPECT_NE(fresh->ticketId, old.ticketId);
    EXPECT_NE(fresh->qr, old.qr);
    EXPECT_EQ(fresh->seatId, QStringLiteral("A4"));
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT replaced_by::text FROM tickets WHERE ticket_id = '%1'").arg(old.ticketId)).toString(), fresh->ticketId);
    EXPECT_EQ(TicketCodec::verify(fresh->qr, keysFromApi(server)).result, TicketCheck::Ok);
    const auto valid = server.context().tickets.validTicketsOfBooking(booking);
    ASSERT_EQ(valid->size(), 1);
    EXPECT_EQ(valid->first().ticketId, fresh->ticketId);

    // Reissuing the revoked one again, or an unknown ticket, is refused.
    {
        store::Transaction transaction(db);
        EXPECT_FALSE(server.context().tickets.reissueTicket(db, old.ticketId, QStringLiteral("reprint")));
    }
    {
        store::Transaction transaction(db);
        EXPECT_FALSE(server.context().tickets.reissueTicket(db, newBookingId(), QStringLiteral("reprint")));
    }

    // The old ticket is on the public revocation list.
    const HttpResult list = server.client(server.deviceToken())->get("/api/v1/revocations?after=0");
    ASSERT_EQ(list.status, 200) << list.body.constData();
    const QJsonArray revocations = list.json()[QStringLiteral("revocations")].toArray();
    ASSERT_EQ(revocations.size(), 1);
    EXPECT_EQ(revocations[0][QStringLiteral("ticket_id")].toString(), old.ticketId);
    EXPECT_EQ(revocations[0][QStringLiteral("reason")].toString(), QStringLiteral("reprint"));
}

TEST(Tickets, ConfirmedBookingQrVerifiesWithPublishedKeysChecksInAndIsRevokedOnCancel)
{
    // The whole path over HTTP: a till sells for cash, the confirm answer carries signed QR codes that verify
    // with GET /api/v1/keys, they check in, and cancelling the booking revokes them.
    TestServer server;
    const qint64 showId = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(6 * 3600));
    auto till = server.client(server.deviceToken(QStringLiteral("till")));
    const HttpResult confirm = sellForCash(*till, showId, {QStringLiteral("B1"), QStringLiteral("B2")});
    ASSERT_EQ(confirm.status, 200) << confirm.body.constData();
    const QJsonArray tickets = confirm.json()[QStringLiteral("tickets")].toArray();
    ASSERT_EQ(tickets.size(), 2);

    const auto keys = keysFromApi(server);
    for (const QJsonValue &ticket : tickets) {
        const TicketVerification v = TicketCodec::verify(ticket[QStringLiteral("qr")].toString(), keys);
        ASSERT_EQ(v.result, TicketCheck::Ok);
        EXPECT_EQ(v.payload.ticketId, QUuid::fromString(ticket[QStringLiteral("ticket_id")].toString()));
        EXPECT_EQ(v.payload.seatId, ticket[QStringLiteral("seat_id")].toString());
        EXPECT_EQ(v.payload.showId, showId);
    }
    const QString booking = confirm.json()[QStringLiteral("booking_id")].toString();
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'ticket.issued' AND aggregate_id = '%1'").arg(booking)), 1);

    auto checkin = [&](const QJsonValue &ticket) {
        const HttpResult r = till->post("/api/v1/checkin", QJsonObject{{QStringLiteral("qr"), ticket[QStringLiteral("qr")]},
                                                                       {QStringLiteral("nonce"), newBookingId()},
                                                                       {QStringLiteral("scanned_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}});
        EXPECT_EQ(r.status, 200) << r.body.constData();
        return r.json()[QStringLiteral("result")].toString();
    };
    // Six hours before the start the doors are not open yet (they open three hours before).
    EXPECT_EQ(checkin(tickets[0]), QStringLiteral("not_yet_valid"));

    auto manager = server.client(server.elevatedStaffToken(QStringLiteral("manager")));
    const HttpResult cancel = manager->post("/api/v1/bookings/" + booking.toLatin1() + "/cancel", QJsonObject{{QStringLiteral("reason"), QStringLiteral("customer asked")}});
    ASSERT_EQ(cancel.status, 200) << cancel.body.constData();
    EXPECT_EQ(checkin(tickets[1]), QStringLiteral("revoked"));
    const HttpResult list = till->get("/api/v1/revocations?after=0");
    ASSERT_EQ(list.status, 200);
    QSet<QString> revoked;
    for (const QJsonValue &r : list.json()[QStringLiteral("revocations")].toArray())
        revoked.insert(r[QStringLiteral("ticket_id")].toString());
    EXPECT_TRUE(revoked.contains(tickets[0][QStringLiteral("ticket_id")].toString()));
    EXPECT_TRUE(revoked.contains(tickets[1][QStringLiteral("ticket_id")].toString()));
}

TEST(Tickets, ReissueOverHttpRevokesTheOldCodeSignsANewOneAndIsAudited)
{
    // A till sells two seats for cash for a show starting within the hour (doors open), a cashier reprints one.
    TestServer server;
    const qint64 showId = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3600));
    auto till = server.client(server.deviceToken(QStringLiteral("till")));
    const HttpResult confirm = sellForCash(*till, showId, {QStringLiteral("A1"), QStringLiteral("A2")});
    ASSERT_EQ(confirm.status, 200) << confirm.body.constData();
    const QString bookingId = confirm.json()[QStringLiteral("booking_id")].toString();
    const QJsonArray tickets = confirm.json()[QStringLiteral("tickets")].toArray();
    ASSERT_EQ(tickets.size(), 2);
    const QString oldId = tickets[0][QStringLiteral("ticket_id")].toString();
    const QString oldQr = tickets[0][QStringLiteral("qr")].toString();
    const QByteArray path = "/api/v1/tickets/" + oldId.toLatin1() + "/reissue";
    const QJsonObject reason{{QStringLiteral("reason"), QStringLiteral("print jammed")}};

    // Refused without changing anything: kiosk, no token, bad bodies, unknown ids.
    const auto before = [&] {
        return server.scalar(QStringLiteral("SELECT concat_ws('/', (SELECT count(*) FROM tickets), (SELECT count(*) FROM revocations), "
                                            "(SELECT count(*) FROM audit_log), (SELECT count(*) FROM outbox))")).toString();
    };
    const QString untouched = before();
    auto kiosk = server.client(server.deviceToken(QStringLiteral("kiosk")));
    EXPECT_EQ(kiosk->post(path, reason).status, 403);
    EXPECT_EQ(server.client()->post(path, reason).status, 401);
    auto cashier = server.client(server.staffToken(QStringLiteral("cashier")));
    const auto expectError = [&](const HttpResult &r, int status, const char *code) {
        EXPECT_EQ(r.status, status) << r.body.constData();
        EXPECT_EQ(r.json()[QStringLiteral("error")].toString().toStdString(), code) << r.body.constData();
    };
    expectError(cashier->request("POST", path, "{nope", {{"Content-Type", "application/json"}}), 400, "malformed_json");
    expectError(cashier->post(path, QJsonObject{}), 400, "missing_field");
    expectError(cashier->post(path, QJsonObject{{QStringLiteral("reason"), QStringLiteral("   ")}}), 400, "missing_field");
    expectError(cashier->post(path, QJsonObject{{QStringLiteral("reason"), 7}}), 400, "invalid_type");
    expectError(cashier->post(path, QJsonObject{{QStringLiteral("reason"), QString(501, QLatin1Char('x'))}}), 400, "invalid_value");
    expectError(cashier->post("/api/v1/tickets/not-a-ticket/reissue", reason), 404, "ticket_not_found");
    expectError(cashier->post("/api/v1/tickets/" + newBookingId().toLatin1() + "/reissue", reason), 404, "ticket_not_found");
    EXPECT_EQ(before(), untouched);

    const HttpResult reissued = cashier->post(path, reason);
    ASSERT_EQ(reissued.status, 200) << reissued.body.constData();
    const QJsonObject fresh = reissued.json();
    const QString newId = fresh[QStringLiteral("ticket_id")].toString();
    EXPECT_NE(newId, oldId);
    EXPECT_EQ(fresh[QStringLiteral("replaces_ticket_id")].toString(), oldId);
    EXPECT_EQ(fresh[QStringLiteral("seat_id")].toString(), tickets[0][QStringLiteral("seat_id")].toString());
    EXPECT_EQ(fresh[QStringLiteral("booking_id")].toString(), bookingId);
    EXPECT_EQ(fresh[QStringLiteral("show_id")].toInteger(), showId);
    EXPECT_FALSE(fresh[QStringLiteral("replayed")].toBool());
    const TicketVerification verified = TicketCodec::verify(fresh[QStringLiteral("qr")].toString(), keysFromApi(server));
    ASSERT_EQ(verified.result, TicketCheck::Ok);
    EXPECT_EQ(verified.payload.ticketId, QUuid::fromString(newId));

    // The audit entry, written with the reissue.
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT action || '|' || actor_role || '|' || target || '|' || reason || '|' || (details->>'new_ticket_id') "
                                           "FROM audit_log")).toString(),
              QStringLiteral("ticket.reissue|cashier|ticket:%1|print jammed|%2").arg(oldId, newId));
    // The old code is on the revocation list; the booking lists the new ticket in its place.
    const HttpResult list = till->get("/api/v1/revocations?after=0");
    ASSERT_EQ(list.status, 200);
    const QJsonArray revocations = list.json()[QStringLiteral("revocations")].toArray();
    ASSERT_EQ(revocations.size(), 1);
    EXPECT_EQ(revocations[0][QStringLiteral("ticket_id")].toString(), oldId);
    EXPECT_EQ(revocations[0][QStringLiteral("reason")].toString(), QStringLiteral("print jammed"));
    QStringList listed;
    for (const QJsonValue &t : cashier->get("/api/v1/bookings/" + bookingId.toLatin1()).json()[QStringLiteral("tickets")].toArray())
        listed << t[QStringLiteral("ticket_id")].toString();
    EXPECT_TRUE(listed.contains(newId));
    EXPECT_FALSE(listed.contains(oldId));

    // A retry (the till lost the answer) gets the same replacement and writes nothing more.
    const QString afterReissue = before();
    const HttpResult replay = cashier->post(path, reason);
    ASSERT_EQ(replay.status, 200) << replay.body.constData();
    EXPECT_EQ(replay.json()[QStringLiteral("ticket_id")].toString(), newId);
    EXPECT_EQ(replay.json()[QStringLiteral("qr")].toString(), fresh[QStringLiteral("qr")].toString());
    EXPECT_TRUE(replay.json()[QStringLiteral("replayed")].toBool());
    EXPECT_EQ(before(), afterReissue);

    // At the door: the old code is revoked, the new one admits, and an admitted ticket cannot be reprinted.
    auto checkin = [&](const QString &qr) {
        const HttpResult r = till->post("/api/v1/checkin", QJsonObject{{QStringLiteral("qr"), qr},
                                                                       {QStringLiteral("nonce"), newBookingId()},
                                                                       {QStringLiteral("scanned_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}});
        EXPECT_EQ(r.status, 200) << r.body.constData();
        return r.json()[QStringLiteral("result")].toString();
    };
    EXPECT_EQ(checkin(oldQr), QStringLiteral("revoked"));
    EXPECT_EQ(checkin(fresh[QStringLiteral("qr")].toString()), QStringLiteral("ok"));
    expectError(cashier->post("/api/v1/tickets/" + newId.toLatin1() + "/reissue", reason), 409, "ticket_already_checked_in");

    // A till device may reprint too (audited as the device); after a cancel every ticket is revoked: 409.
    const QString secondId = tickets[1][QStringLiteral("ticket_id")].toString();
    const HttpResult byTill = till->post("/api/v1/tickets/" + secondId.toLatin1() + "/reissue", QJsonObject{{QStringLiteral("reason"), QStringLiteral("torn")}});
    ASSERT_EQ(byTill.status, 200) << byTill.body.constData();
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'ticket.reissue' AND actor LIKE 'device:%%'")), 1);
    auto manager = server.client(server.elevatedStaffToken(QStringLiteral("manager")));
    // One of its tickets was admitted at the door: refunding it is the manager's explicit override.
    ASSERT_EQ(manager->post("/api/v1/bookings/" + bookingId.toLatin1() + "/cancel",
                            QJsonObject{{QStringLiteral("reason"), QStringLiteral("refund")}, {QStringLiteral("admitted_override"), true}}).status, 200);
    expectError(cashier->post("/api/v1/tickets/" + byTill.json()[QStringLiteral("ticket_id")].toString().toLatin1() + "/reissue", reason), 409, "ticket_revoked");
    // The first reissue's replay no longer hands out a (now revoked) replacement.
    expectError(cashier->post(path, reason), 409, "ticket_revoked");
    EXPECT_EQ(count(server, QStringLiteral("SELECT count(*) FROM tickets WHERE booking_id = '%1' AND state = 'valid'").arg(bookingId)), 0);
}

namespace {
QStringList g_logLines;
QMutex g_logMutex;
void captureLog(QtMsgType, const QMessageLogContext &, const QString &message)
{
    QMutexLocker lock(&g_logMutex);
    g_logLines << message;
}
} // namespace

TEST(Tickets, SigningKeysAreSealedWithTheKekFileNeverStoredRawNeverLoggedNeverServed)
{
    const QtMessageHandler previous = qInstallMessageHandler(captureLog);
    {
        QMutexLocker lock(&g_logMutex);
        g_logLines.clear();
    }
    auto server = std::make_unique<TestServer>();
    const qint64 showId = server->createShow(2, 2);
    ASSERT_TRUE(issue(*server, newBookingId(), showId, {QStringLiteral("A1")}));

    // The KEK: 32 bytes, created 0600 in the data directory on the first start.
    const QString kekPath = server->dataDirectory() + QStringLiteral("/signing-kek");
    QFile kekFile(kekPath);
    ASSERT_TRUE(kekFile.open(QIODevice::ReadOnly));
    const QByteArray kek = kekFile.readAll();
    ASSERT_EQ(kek.size(), 32);
    struct stat info {};
    ASSERT_EQ(::stat(QFile::encodeName(kekPath).constData(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);

    // In the database only the sealed seed, bound to its row; it opens with the KEK into the published key pair.
    QSqlQuery q(server->context().database.connection());
    ASSERT_TRUE(q.exec(QStringLiteral("SELECT venue_id, public_key, private_key IS NULL, private_key_sealed FROM signing_keys")));
    ASSERT_TRUE(q.next());
    const qint64 venueId = q.value(0).toLongLong();
    const QByteArray publicKey = q.value(1).toByteArray();
    EXPECT_TRUE(q.value(2).toBool());
    const QByteArray sealed = q.value(3).toByteArray();
    EXPECT_EQ(sealed.size(), KeySeal::sealedSize(32));
    const auto seed = KeySeal::open(kek, sealed, store::TicketRepository::sealContext(venueId, publicKey));
    ASSERT_TRUE(seed.has_value());
    EXPECT_EQ(TicketCodec::publicKeyOf(*seed), publicKey);
    EXPECT_FALSE(sealed.contains(*seed));
    EXPECT_FALSE(KeySeal::open(QByteArray(32, 'k'), sealed, store::TicketRepository::sealContext(venueId, publicKey)).has_value());
    EXPECT_FALSE(KeySeal::open(kek, sealed, store::TicketRepository::sealContext(venueId + 1, publicKey)).has_value());
    // Not served: the public endpoint carries the public key only.
    const QByteArray keysBody = server->client(server->staffToken(QStringLiteral("manager")))->get("/api/v1/keys").body;
    EXPECT_TRUE(keysBody.contains(publicKey.toBase64()));
    EXPECT_FALSE(keysBody.contains(seed->toBase64()));
    EXPECT_FALSE(keysBody.contains(seed->toHex()));

    // A seed stored raw by schema 2 (before the upgrade) is sealed at the next start, and the raw column cleared.
    const QString databaseUrl = server->databaseUrl();
    const auto legacy = TicketCodec::generateKeyPair();
    ASSERT_TRUE(legacy);
    const qint64 otherVenue = server->scalar(QStringLiteral("INSERT INTO venues (name, city_id) SELECT 'Legacy', city_id FROM venues LIMIT 1 RETURNING venue_id")).toLongLong();
    ASSERT_GT(otherVenue, 0);
    QSqlQuery raw(server->context().database.connection());
    raw.prepare(QStringLiteral("INSERT INTO signing_keys (venue_id, public_key, private_key, not_after) VALUES (?, ?, ?, now() + interval '1 day')"));
    raw.addBindValue(otherVenue);
    raw.addBindValue(legacy->publicKey);
    raw.addBindValue(legacy->privateKey);
    ASSERT_TRUE(raw.exec()) << raw.lastError().text().toStdString();
    QString error;
    ASSERT_TRUE(server->context().tickets.prepareSigningKeys(&error)) << error.toStdString();
    EXPECT_EQ(count(*server, QStringLiteral("SELECT count(*) FROM signing_keys WHERE private_key IS NOT NULL")), 0);
    QSqlQuery resealed(server->context().database.connection());
    ASSERT_TRUE(resealed.exec(QStringLiteral("SELECT private_key_sealed FROM signing_keys WHERE venue_id = %1").arg(otherVenue)) && resealed.next());
    EXPECT_EQ(KeySeal::open(kek, resealed.value(0).toByteArray(), store::TicketRepository::sealContext(otherVenue, legacy->publicKey)), legacy->privateKey);

    // Another server of this database with another KEK refuses to start instead of failing to sign later; so does
    // one whose KEK file others may read.
    QTemporaryDir otherDirectory;
    ServerConfig config;
    config.listenAddress = QHostAddress::LocalHost;
    config.listenPort = 0;
    config.threads = 1;
    config.databaseUrl = databaseUrl;
    config.dataDirectory = otherDirectory.path();
    {
        MarqueeServer other(config);
        EXPECT_FALSE(other.start());
        EXPECT_TRUE(other.errorString().contains(QStringLiteral("key-encryption key"))) << other.errorString().toStdString();
    }
    ASSERT_TRUE(QFile::copy(kekPath, otherDirectory.path() + QStringLiteral("/copied-kek")));
    ::chmod(QFile::encodeName(otherDirectory.path() + QStringLiteral("/copied-kek")).constData(), 0644);
    config.signingKeyFile = otherDirectory.path() + QStringLiteral("/copied-kek");
    {
        MarqueeServer other(config);
        EXPECT_FALSE(other.start());
        EXPECT_TRUE(other.errorString().contains(QStringLiteral("chmod 600"))) << other.errorString().toStdString();
    }
    ::chmod(QFile::encodeName(config.signingKeyFile).constData(), 0600);
    {
        MarqueeServer other(config); // the same KEK: starts and signs with the sealed key
        ASSERT_TRUE(other.start()) << other.errorString().toStdString();
        QSqlDatabase db = other.context().database.connection();
        store::Transaction transaction(db);
        const auto tickets = other.context().tickets.issueTickets(db, newBookingId(), showId, {QStringLiteral("B1")});
        ASSERT_TRUE(tickets);
        EXPECT_EQ(TicketCodec::verify(tickets->first().qr, keysFromApi(*server)).result, TicketCheck::Ok);
        ASSERT_TRUE(transaction.commit());
        other.context().database.closeThreadConnection();
    }
    server.reset();
    qInstallMessageHandler(previous);
    // Nothing logged anywhere carries a seed, in hex or base64.
    QMutexLocker lock(&g_logMutex);
    for (const QString &line : std::as_const(g_logLines)) {
        for (const QByteArray &secret : {*seed, legacy->privateKey}) {
            EXPECT_FALSE(line.contains(QString::fromLatin1(secret.toHex()), Qt::CaseInsensitive)) << line.toStdString();
            EXPECT_FALSE(line.contains(QString::fromLatin1(secret.toBase64()))) << line.toStdString();
        }
    }
}
