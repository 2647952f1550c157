// SPDX-License-Identifier: AGPL-3.0-or-later
// Signed tickets (issue 3 §3): TicketRepository inside a caller's transaction, keys and rotation, revocations.
#include "testserver.h"

#include "core/ticketcodec.h"
#include "store/database.h"
#include "store/ticketrepository.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSet>
#include <QSqlQuery>
#include <QUuid>
#include <gtest/gtest.h>

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
    const HttpResult result = server.client()->get("/api/v1/keys");
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
    const HttpResult hold = till->post("/api/v1/shows/" + QByteArray::number(showId) + "/hold",
                                       QJsonObject{{QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("B1"), QStringLiteral("B2")}}});
    ASSERT_EQ(hold.status, 200) << hold.body.constData();
    const HttpResult order = till->post("/api/v1/orders", QJsonObject{{QStringLiteral("hold_id"), hold.json()[QStringLiteral("hold_id")]},
                                                                      {QStringLiteral("payment_method"), QStringLiteral("cash")}});
    ASSERT_EQ(order.status, 201) << order.body.constData();
    const HttpResult confirm = till->post("/api/v1/orders/" + order.json()[QStringLiteral("order_id")].toString().toLatin1() + "/confirm",
                                          QJsonObject{{QStringLiteral("payment_intent_id"), order.json()[QStringLiteral("payment_intent_id")]}});
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

    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
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
