// SPDX-License-Identifier: AGPL-3.0-or-later
// Seat-block leases against real PostgreSQL over real HTTP: leased seats are all or nothing and never held or sold
// by anyone else, even under a race of many leases and holds; given back, revoked, expired (unreported, never
// resold silently); the limits; and the sales a till reports under its lease — each exactly one booking, a retry
// the same answer, bad or conflicting uploads refused with nothing changed.
#include "seatrace.h"
#include "servertesthelpers.h"
#include "tilltesthelpers.h"
#include "wiretext.h"

#include "core/isotime.h"
#include "store/sessiondevicerepository.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QThread>
#include <atomic>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>
#include <vector>

using namespace marquee;
using namespace marquee::test;

namespace {

QByteArray leasesPath(qint64 showId)
{
    return "/api/v1/shows/" + QByteArray::number(showId) + "/leases";
}
QByteArray leasePath(const QString &leaseId)
{
    return "/api/v1/leases/" + leaseId.toUtf8();
}
QJsonObject bestBody(int count)
{
    return QJsonObject{{QStringLiteral("best"), count}};
}
QString nowIso(qint64 offsetSeconds = 0)
{
    return toIsoUtc(QDateTime::currentDateTimeUtc().addSecs(offsetSeconds));
}
QJsonObject saleBody(qint64 seq, const QStringList &seats, qint64 amount, qint64 tendered, const QString &soldAt = nowIso())
{
    QJsonArray tickets;
    for (const QString &seat : seats)
        tickets.append(QJsonObject{{QStringLiteral("ticket_id"), QStringLiteral("dev-%1-%2").arg(seq).arg(seat)},
                                   {QStringLiteral("seat_id"), seat},
                                   {QStringLiteral("code"), QStringLiteral("offline-code-%1").arg(seat)}});
    return QJsonObject{{QStringLiteral("device_seq"), seq},          {QStringLiteral("seat_ids"), QJsonArray::fromStringList(seats)},
                       {QStringLiteral("amount_minor"), amount},      {QStringLiteral("currency"), QStringLiteral("EUR")},
                       {QStringLiteral("tendered_minor"), tendered},  {QStringLiteral("sold_at"), soldAt},
                       {QStringLiteral("tickets"), tickets}};
}
HttpResult putJson(HttpClient &client, const QByteArray &path, const QJsonObject &body)
{
    return client.request("PUT", path, QJsonDocument(body).toJson(QJsonDocument::Compact), {{"Content-Type", "application/json"}});
}
QByteArray salesPath(const QString &leaseId)
{
    return leasePath(leaseId) + "/sales";
}

/** @brief Every table a lease or a sale writes, for "nothing changed". */
QString leaseState(TestServer &server)
{
    return databaseState(server) + QLatin1Char('|')
         + server
               .scalar(QStringLiteral("SELECT concat_ws('/', (SELECT count(*) FROM seat_leases), "
                                      "  (SELECT count(*) FROM seat_leases WHERE returned_at IS NOT NULL OR revoked_at IS NOT NULL), "
                                      "  (SELECT count(*) FROM lease_sales), (SELECT count(*) FROM orders), (SELECT count(*) FROM bookings))"))
               .toString();
}

struct Leases : ::testing::Test {
    Leases()
        : server([] {
            TestServer::Options options;
            options.threads = 4;
            return options;
        }())
    {
        showId = server.createShow(4, 6); // A, B standard (1250), C, D premium (1800)
        tillToken = server.deviceToken(QStringLiteral("till"));
        till = server.client(tillToken);
    }
    QJsonObject lease(HttpClient &client, const QStringList &seats)
    {
        const HttpResult r = client.post(leasesPath(showId), seatsBody(seats));
        EXPECT_EQ(r.status, 201) << r.body.toStdString();
        return r.json();
    }
    QString status(const QString &seat) { return seatStatuses(*till, showId).value(seat); }
    qint64 count(const QString &sql) { return server.scalar(sql).toLongLong(); }

    TestServer server;
    qint64 showId = 0;
    QString tillToken;
    std::unique_ptr<HttpClient> till;
};

} // namespace

TEST_F(Leases, NamedSeatsAreLeasedAllOrNothingAndAnOverlapLeasesNone)
{
    const QJsonObject granted = lease(*till, {QStringLiteral("A2"), QStringLiteral("A1")});
    EXPECT_EQ(stringList(granted.value(QStringLiteral("seat_ids"))), QStringList({QStringLiteral("A1"), QStringLiteral("A2")}));
    EXPECT_EQ(stringList(granted.value(QStringLiteral("leased_seats"))), QStringList({QStringLiteral("A1"), QStringLiteral("A2")}));
    EXPECT_EQ(granted.value(QStringLiteral("state")).toString(), QStringLiteral("active"));
    EXPECT_EQ(status(QStringLiteral("A1")), QStringLiteral("leased"));
    EXPECT_EQ(seatsInStatus(server, showId, "leased"), 2);
    const HttpResult availability = till->get("/api/v1/shows/" + QByteArray::number(showId) + "/availability");
    ASSERT_EQ(availability.status, 200) << availability.body.toStdString();
    EXPECT_EQ(availability.json().value(QStringLiteral("statuses")).toString().left(2), QStringLiteral("ll")) << availability.body.toStdString();

    // Another till asking for A2 and A3: refused with the seat that overlaps, and A3 is not leased either.
    auto other = server.client(server.deviceToken(QStringLiteral("till")));
    const QString before = leaseState(server);
    const HttpResult overlap = other->post(leasesPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A2")}));
    EXPECT_API_ERROR(overlap, 409, "seats_unavailable");
    EXPECT_EQ(stringList(overlap.json().value(QStringLiteral("held_seats"))), QStringList{QStringLiteral("A2")});
    EXPECT_EQ(leaseState(server), before);
    EXPECT_EQ(status(QStringLiteral("A3")), QStringLiteral("available"));

    // Nobody holds a leased seat: not a kiosk, not the till itself through a hold.
    auto kiosk = server.client(server.deviceToken());
    const HttpResult held = kiosk->post(holdPath(showId), seatsBody({QStringLiteral("A1")}));
    EXPECT_API_ERROR(held, 409, "seats_unavailable");
    EXPECT_API_ERROR(till->post(holdPath(showId), seatsBody({QStringLiteral("A2")})), 409, "seats_unavailable");
    // A held seat is not leased.
    ASSERT_EQ(kiosk->post(holdPath(showId), seatsBody({QStringLiteral("B1")})).status, 200);
    EXPECT_API_ERROR(other->post(leasesPath(showId), seatsBody({QStringLiteral("B1"), QStringLiteral("B2")})), 409, "seats_unavailable");
    EXPECT_EQ(status(QStringLiteral("B2")), QStringLiteral("available"));
    expectSeatInvariants(server, showId);
}

TEST_F(Leases, BadLeaseRequestsAreRefusedAndChangeNothing)
{
    auto cashier = server.client(server.staffToken(QStringLiteral("cashier")));
    const QString before = leaseState(server);
    EXPECT_API_ERROR(till->post(leasesPath(showId), QJsonObject{}), 400, "invalid_lease");
    EXPECT_API_ERROR(till->post(leasesPath(showId), QJsonObject{{QStringLiteral("best"), 2}, {QStringLiteral("seat_ids"), QJsonArray{QStringLiteral("A1")}}}),
                     400, "invalid_lease");
    EXPECT_API_ERROR(till->post(leasesPath(showId), bestBody(0)), 400, "invalid_lease");
    EXPECT_API_ERROR(till->post(leasesPath(showId), seatsBody({QStringLiteral("A1"), QStringLiteral("Z9")})), 400, "unknown_seat");
    EXPECT_API_ERROR(till->post(leasesPath(999999), seatsBody({QStringLiteral("A1")})), 404, "show_not_found");
    EXPECT_API_ERROR(till->post("/api/v1/shows/x/leases", seatsBody({QStringLiteral("A1")})), 400, "invalid_id");
    EXPECT_API_ERROR(till->request("POST", leasesPath(showId), "{not json", {{"Content-Type", "application/json"}}), 400, "malformed_json");
    // A cashier signed in without a till has no device to lease to.
    EXPECT_API_ERROR(cashier->post(leasesPath(showId), seatsBody({QStringLiteral("A1")})), 422, "lease_needs_till");
    EXPECT_API_ERROR(till->get(leasePath(QStringLiteral("not-a-uuid"))), 404, "lease_not_found");
    EXPECT_API_ERROR(till->del(leasePath(QStringLiteral("00000000-0000-4000-8000-000000000000"))), 404, "lease_not_found");
    EXPECT_EQ(leaseState(server), before);
}

TEST_F(Leases, BestLeasesFreeSeatsNearTheMiddleAndAKeyReplaysTheLease)
{
    const QByteArray key = "lease-best-1";
    const HttpResult first = till->request("POST", leasesPath(showId), QJsonDocument(bestBody(3)).toJson(),
                                           {{"Content-Type", "application/json"}, {"Idempotency-Key", key}});
    ASSERT_EQ(first.status, 201) << first.body.toStdString();
    const QStringList seats = stringList(first.json().value(QStringLiteral("seat_ids")));
    ASSERT_EQ(seats.size(), 3);
    for (const QString &seat : seats)
        EXPECT_EQ(status(seat), QStringLiteral("leased")) << seat.toStdString();
    EXPECT_FALSE(seats.contains(QStringLiteral("A1"))) << "A1 is a corner seat";
    const HttpResult again = till->request("POST", leasesPath(showId), QJsonDocument(bestBody(3)).toJson(),
                                           {{"Content-Type", "application/json"}, {"Idempotency-Key", key}});
    EXPECT_EQ(again.status, 201);
    EXPECT_EQ(again.json().value(QStringLiteral("lease_id")), first.json().value(QStringLiteral("lease_id")));
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM seat_leases")), 1);
    EXPECT_API_ERROR(till->request("POST", leasesPath(showId), QJsonDocument(bestBody(2)).toJson(),
                                   {{"Content-Type", "application/json"}, {"Idempotency-Key", key}}),
                     422, "idempotency_key_reused");
    // More than are free: nothing leased.
    auto other = server.client(server.deviceToken(QStringLiteral("till")));
    const HttpResult tooMany = putJson(*other, "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings", QJsonObject{});
    EXPECT_EQ(tooMany.status, 403); // a till is no manager
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    ASSERT_EQ(putJson(*manager, "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings", QJsonObject{{QStringLiteral("seats_per_device"), 100}}).status, 200);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT details->>'seats_per_device' FROM audit_log WHERE action = 'lease.settings' AND target = 'show:%1'")
                                .arg(showId)).toString(),
              QStringLiteral("100"))
        << "a manager's lease settings are audited";
    const QString before = leaseState(server);
    const HttpResult short_ = other->post(leasesPath(showId), bestBody(22));
    EXPECT_API_ERROR(short_, 409, "not_enough_seats");
    EXPECT_EQ(short_.json().value(QStringLiteral("available")).toInt(), 21);
    EXPECT_EQ(leaseState(server), before);
}

TEST_F(Leases, LimitsPerTillAndShowAndTheStartAreDecidedWithTheLease)
{
    lease(*till, {QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3"), QStringLiteral("A4")});
    const QString before = leaseState(server);
    const HttpResult over = till->post(leasesPath(showId), seatsBody({QStringLiteral("B1"), QStringLiteral("B2"), QStringLiteral("B3")}));
    EXPECT_API_ERROR(over, 422, "lease_limit_reached");
    EXPECT_EQ(over.json().value(QStringLiteral("limit")).toInt(), 6);
    EXPECT_EQ(over.json().value(QStringLiteral("leased")).toInt(), 4);
    EXPECT_EQ(leaseState(server), before);
    lease(*till, {QStringLiteral("B1"), QStringLiteral("B2")}); // exactly the limit

    // A manager lets this show's tills keep more, and says when seats go back.
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    const QByteArray settingsPath = "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings";
    EXPECT_API_ERROR(putJson(*manager, settingsPath, QJsonObject{{QStringLiteral("seats_per_device"), -1}}), 400, "invalid_setting");
    const HttpResult set = putJson(*manager, settingsPath, QJsonObject{{QStringLiteral("seats_per_device"), 8}, {QStringLiteral("grace_seconds"), 600}});
    ASSERT_EQ(set.status, 200) << set.body.toStdString();
    EXPECT_EQ(set.json().value(QStringLiteral("seats_per_device")).toInt(), 8);
    EXPECT_EQ(set.json().value(QStringLiteral("return_before_seconds")).toInt(), 1200); // the server's default
    EXPECT_EQ(manager->get(settingsPath).json(), set.json());
    lease(*till, {QStringLiteral("B3"), QStringLiteral("B4")});

    // A show starting within the return window: no lease (422), whoever asks.
    const qint64 soon = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(600));
    const HttpResult late = till->post(leasesPath(soon), seatsBody({QStringLiteral("A1")}));
    EXPECT_API_ERROR(late, 422, "show_starting");
    EXPECT_FALSE(late.json().value(QStringLiteral("return_by")).toString().isEmpty());
    EXPECT_EQ(seatsInStatus(server, soon, "leased"), 0);
}

TEST_F(Leases, TheTillGivesSeatsBackAndAManagerRevokesWithoutFreeingThem)
{
    const QJsonObject first = lease(*till, {QStringLiteral("A1"), QStringLiteral("A2")});
    const QString id = first.value(QStringLiteral("lease_id")).toString();
    const HttpResult read = till->get(leasePath(id));
    ASSERT_EQ(read.status, 200);
    EXPECT_EQ(read.json().value(QStringLiteral("device_id")), first.value(QStringLiteral("device_id")));
    auto otherTill = server.client(server.deviceToken(QStringLiteral("till")));
    EXPECT_API_ERROR(otherTill->get(leasePath(id)), 404, "lease_not_found");
    EXPECT_API_ERROR(otherTill->del(leasePath(id)), 404, "lease_not_found");
    const HttpResult listed = till->get(leasesPath(showId));
    ASSERT_EQ(listed.status, 200);
    EXPECT_EQ(listed.json().value(QStringLiteral("leases")).toArray().size(), 1);
    EXPECT_EQ(otherTill->get(leasesPath(showId)).json().value(QStringLiteral("leases")).toArray().size(), 0);

    const HttpResult returned = till->del(leasePath(id));
    ASSERT_EQ(returned.status, 200) << returned.body.toStdString();
    EXPECT_EQ(returned.json().value(QStringLiteral("state")).toString(), QStringLiteral("returned"));
    EXPECT_EQ(stringList(returned.json().value(QStringLiteral("freed_seats"))), QStringList({QStringLiteral("A1"), QStringLiteral("A2")}));
    EXPECT_EQ(status(QStringLiteral("A1")), QStringLiteral("available"));
    const HttpResult again = till->del(leasePath(id));
    EXPECT_EQ(again.status, 200);
    EXPECT_TRUE(again.json().value(QStringLiteral("freed_seats")).toArray().isEmpty());
    EXPECT_API_ERROR(till->post(salesPath(id), saleBody(1, {QStringLiteral("A1")}, kStandard, kStandard)), 409, "lease_returned");

    // Revoked by a manager while it runs: the till may have sold the seats offline, so they stay leased ...
    const QString second = lease(*till, {QStringLiteral("C1"), QStringLiteral("C2")}).value(QStringLiteral("lease_id")).toString();
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    EXPECT_EQ(manager->get(leasesPath(showId)).json().value(QStringLiteral("leases")).toArray().size(), 2);
    const HttpResult revoked = manager->del(leasePath(second));
    ASSERT_EQ(revoked.status, 200) << revoked.body.toStdString();
    EXPECT_EQ(revoked.json().value(QStringLiteral("state")).toString(), QStringLiteral("revoked"));
    EXPECT_TRUE(revoked.json().value(QStringLiteral("freed_seats")).toArray().isEmpty());
    EXPECT_EQ(status(QStringLiteral("C1")), QStringLiteral("leased"));
    // The manager's revocation is on the record (the till's own return is not a manager's action).
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action = 'lease.revoke' AND target = 'lease:%1' "
                                           "AND actor_role = 'manager'").arg(second)).toInt(), 1);
    EXPECT_EQ(server.scalar(QStringLiteral("SELECT count(*) FROM audit_log WHERE action LIKE 'lease.%' AND target = 'lease:%1'").arg(id)).toInt(), 0);
    // ... until it reports what it sold and gives back the rest.
    const HttpResult sold = till->post(salesPath(second), saleBody(1, {QStringLiteral("C1")}, kPremium, 2000));
    ASSERT_EQ(sold.status, 201) << sold.body.toStdString();
    const HttpResult back = till->del(leasePath(second));
    EXPECT_EQ(stringList(back.json().value(QStringLiteral("freed_seats"))), QStringList{QStringLiteral("C2")});
    EXPECT_EQ(status(QStringLiteral("C1")), QStringLiteral("booked"));
    EXPECT_EQ(status(QStringLiteral("C2")), QStringLiteral("available"));
    expectSeatInvariants(server, showId);
}

TEST_F(Leases, AReportedSaleBecomesOneBookingAndARetryGetsTheSameAnswer)
{
    const QString id = lease(*till, {QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("C1")}).value(QStringLiteral("lease_id")).toString();
    const QJsonObject body = saleBody(1, {QStringLiteral("A2"), QStringLiteral("A1")}, 2 * kStandard, 3000);
    const HttpResult sold = till->post(salesPath(id), body);
    ASSERT_EQ(sold.status, 201) << sold.body.toStdString();
    EXPECT_EQ(sold.json().value(QStringLiteral("amount_minor")).toInteger(), 2 * kStandard);
    EXPECT_FALSE(sold.json().value(QStringLiteral("booking_ref")).toString().isEmpty());
    EXPECT_EQ(status(QStringLiteral("A1")), QStringLiteral("booked"));
    EXPECT_EQ(status(QStringLiteral("A2")), QStringLiteral("booked"));
    EXPECT_EQ(status(QStringLiteral("C1")), QStringLiteral("leased"));
    const QString bookingId = sold.json().value(QStringLiteral("booking_id")).toString();
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM bookings")), 1);
    EXPECT_EQ(count(QStringLiteral("SELECT cash_minor FROM orders o JOIN bookings b USING (order_id) WHERE b.booking_id = '%1'").arg(bookingId)),
              2 * kStandard);
    EXPECT_EQ(count(QStringLiteral("SELECT change_minor FROM orders o JOIN bookings b USING (order_id) WHERE b.booking_id = '%1'").arg(bookingId)),
              3000 - 2 * kStandard);
    EXPECT_EQ(count(QStringLiteral("SELECT jsonb_array_length(tickets) FROM lease_sales WHERE device_seq = 1")), 2);

    // The same upload again (the till did not see the answer): the same answer, no second booking.
    const QString before = leaseState(server);
    const HttpResult replay = till->post(salesPath(id), body);
    EXPECT_EQ(replay.status, 201);
    EXPECT_EQ(replay.json(), sold.json());
    EXPECT_EQ(leaseState(server), before);

    // Refused, and nothing changed: the same sequence number with other content, seats the lease never had, a seat
    // already sold under the lease, the wrong price, too little cash, another till, malformed content.
    EXPECT_API_ERROR(till->post(salesPath(id), saleBody(1, {QStringLiteral("A1"), QStringLiteral("A2")}, 2 * kStandard, 2500)), 409, "sale_conflict");
    const HttpResult foreign = till->post(salesPath(id), saleBody(2, {QStringLiteral("C1"), QStringLiteral("D1")}, 2 * kPremium, 4000));
    EXPECT_API_ERROR(foreign, 409, "seats_not_in_lease");
    EXPECT_EQ(stringList(foreign.json().value(QStringLiteral("seats"))), QStringList{QStringLiteral("D1")});
    const HttpResult twice = till->post(salesPath(id), saleBody(2, {QStringLiteral("A1"), QStringLiteral("C1")}, kStandard + kPremium, 4000));
    EXPECT_API_ERROR(twice, 409, "seats_not_leased");
    EXPECT_EQ(stringList(twice.json().value(QStringLiteral("seats"))), QStringList{QStringLiteral("A1")});
    const HttpResult price = till->post(salesPath(id), saleBody(2, {QStringLiteral("C1")}, kStandard, 4000));
    EXPECT_API_ERROR(price, 422, "price_mismatch");
    EXPECT_EQ(price.json().value(QStringLiteral("amount_minor")).toInteger(), kPremium);
    EXPECT_API_ERROR(till->post(salesPath(id), saleBody(2, {QStringLiteral("C1")}, kPremium, 100)), 422, "insufficient_tender");
    EXPECT_API_ERROR(till->post(salesPath(id), saleBody(2, {QStringLiteral("C1")}, kPremium, 2000, nowIso(86400 * 3))), 422, "sale_outside_lease");
    auto otherTill = server.client(server.deviceToken(QStringLiteral("till")));
    EXPECT_API_ERROR(otherTill->post(salesPath(id), saleBody(2, {QStringLiteral("C1")}, kPremium, 2000)), 404, "lease_not_found");
    QJsonObject noSeq = saleBody(2, {QStringLiteral("C1")}, kPremium, 2000);
    noSeq.remove(QStringLiteral("device_seq"));
    EXPECT_EQ(till->post(salesPath(id), noSeq).status, 400);
    QJsonObject badTime = saleBody(2, {QStringLiteral("C1")}, kPremium, 2000);
    badTime.insert(QStringLiteral("sold_at"), QStringLiteral("yesterday"));
    EXPECT_API_ERROR(till->post(salesPath(id), badTime), 400, "invalid_sale");
    QJsonObject badTicket = saleBody(2, {QStringLiteral("C1")}, kPremium, 2000);
    badTicket.insert(QStringLiteral("tickets"), QJsonArray{QJsonObject{{QStringLiteral("ticket_id"), QStringLiteral("t")}, {QStringLiteral("seat_id"), QStringLiteral("D4")}}});
    EXPECT_API_ERROR(till->post(salesPath(id), badTicket), 400, "invalid_sale");
    EXPECT_EQ(leaseState(server), before);

    // The next sale of the lease goes through, and the lease says what it sold and what it still has.
    ASSERT_EQ(till->post(salesPath(id), saleBody(2, {QStringLiteral("C1")}, kPremium, kPremium)).status, 201);
    const QJsonObject now = till->get(leasePath(id)).json();
    EXPECT_EQ(stringList(now.value(QStringLiteral("sold_seats"))), QStringList({QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("C1")}));
    EXPECT_TRUE(now.value(QStringLiteral("leased_seats")).toArray().isEmpty());
    EXPECT_EQ(now.value(QStringLiteral("sales")).toInt(), 2);
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM bookings")), 2);
    expectSeatInvariants(server, showId);
}

TEST_F(Leases, ACashierAtTheTillLeasesForItAndItsSalesCountInTheShift)
{
    const QString cashierToken = server.elevatedStaffToken(QStringLiteral("cashier")); // opening a shift asks for it
    const qint64 tillId = server.context().auth.authenticate(tillToken)->id;
    ASSERT_TRUE(store::SessionDeviceRepository(server.context().database).bind(cashierToken, tillId));
    server.context().auth.clearCache();
    auto cashier = server.client(cashierToken);
    ASSERT_EQ(cashier->post("/api/v1/shifts", QJsonObject{{QStringLiteral("opening_float_minor"), 5000}, {QStringLiteral("currency"), QStringLiteral("EUR")}}).status, 201);
    const QJsonObject granted = lease(*cashier, {QStringLiteral("B1"), QStringLiteral("B2")});
    EXPECT_EQ(granted.value(QStringLiteral("device_id")).toInteger(), tillId);
    // The till's own token sees (and may report under) the lease its cashier took.
    EXPECT_EQ(till->get(leasePath(granted.value(QStringLiteral("lease_id")).toString())).status, 200);
    const HttpResult sold = cashier->post(salesPath(granted.value(QStringLiteral("lease_id")).toString()),
                                          saleBody(7, {QStringLiteral("B1")}, kStandard, 2000));
    ASSERT_EQ(sold.status, 201) << sold.body.toStdString();
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM orders WHERE shift_id IS NOT NULL AND provider = 'cash'")), 1);
    const HttpResult shift = cashier->get("/api/v1/shifts/current");
    ASSERT_EQ(shift.status, 200) << shift.body.toStdString();
    EXPECT_NE(shift.body.indexOf(QByteArray::number(kStandard)), -1) << shift.body.toStdString();
}

TEST_F(Leases, AnExpiredLeaseWithUnsoldSeatsIsUnreportedNotResold)
{
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    // A show starting in three seconds whose leases run to its start and no further.
    const qint64 soon = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(3));
    ASSERT_EQ(putJson(*manager, "/api/v1/shows/" + QByteArray::number(soon) + "/lease-settings",
                           QJsonObject{{QStringLiteral("return_before_seconds"), 0}, {QStringLiteral("grace_seconds"), 0}})
                  .status,
              200);
    const HttpResult granted = till->post(leasesPath(soon), seatsBody({QStringLiteral("A1"), QStringLiteral("A2"), QStringLiteral("A3")}));
    ASSERT_EQ(granted.status, 201) << granted.body.toStdString();
    const QString id = granted.json().value(QStringLiteral("lease_id")).toString();
    const QString soldAt = nowIso();
    // The reaper (every 200 ms in tests) finds it expired: unreported, the seats still leased.
    ASSERT_TRUE(pumpUntil([&] { return till->get(leasePath(id)).json().value(QStringLiteral("state")).toString() == QLatin1String("unreported"); }, 15000));
    EXPECT_EQ(seatsInStatus(server, soon, "leased"), 3);
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM outbox WHERE event_type = 'lease.unreported' AND aggregate_id = '%1'").arg(id)), 1);

    // The till comes back after the start: what it sold before the expiry is booked all the same ...
    // (Both rows of a two-row show are premium.)
    const HttpResult late = till->post(salesPath(id), saleBody(1, {QStringLiteral("A1")}, kPremium, kPremium, soldAt));
    ASSERT_EQ(late.status, 201) << late.body.toStdString();
    // ... nothing sold after it is.
    EXPECT_API_ERROR(till->post(salesPath(id), saleBody(2, {QStringLiteral("A2")}, kPremium, kPremium, nowIso(5))), 422, "sale_outside_lease");
    // A manager releases what is still unreported (the till never will, say): back on sale.
    const HttpResult released = manager->del(leasePath(id));
    ASSERT_EQ(released.status, 200) << released.body.toStdString();
    EXPECT_EQ(released.json().value(QStringLiteral("state")).toString(), QStringLiteral("returned"));
    EXPECT_EQ(stringList(released.json().value(QStringLiteral("freed_seats"))), QStringList({QStringLiteral("A2"), QStringLiteral("A3")}));
    EXPECT_EQ(seatsInStatus(server, soon, "booked"), 1);
    EXPECT_EQ(seatsInStatus(server, soon, "leased"), 0);
    expectSeatInvariants(server, soon);
}

// Many tills and kiosks race for the same seats with leases and holds at once: every seat is granted to at most
// one of them, each lease is whole or nothing, and the table agrees.
TEST_F(Leases, RacingLeasesAndHoldsNeverShareASeat)
{
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    ASSERT_EQ(putJson(*manager, "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings", QJsonObject{{QStringLiteral("seats_per_device"), 24}}).status,
              200);
    constexpr int kClients = 12;
    constexpr int kAttempts = 12;
    QStringList all;
    for (const char row : {'A', 'B', 'C', 'D'})
        for (int n = 1; n <= 6; ++n)
            all << QStringLiteral("%1%2").arg(QLatin1Char(row)).arg(n);
    std::vector<QString> tokens;
    for (int c = 0; c < kClients; ++c)
        tokens.push_back(server.deviceToken(c % 2 ? QStringLiteral("till") : QStringLiteral("kiosk")));
    std::mutex mutex;
    QMap<QString, QString> grantedTo; // seat -> who
    QStringList doubleGrants;
    std::atomic<int> grants{0};
    std::atomic<int> refusals{0};
    std::atomic<int> oddAnswers{0};
    raceClients(server, tokens, [&](int c, HttpClient &client) {
        for (int a = 0; a < kAttempts; ++a) {
            // Two or three neighbouring seats, overlapping other clients' picks on purpose.
            const int first = (c * 5 + a * 7) % (all.size() - 2);
            const QStringList seats = all.mid(first, 2 + (a + c) % 2);
            const bool leasing = c % 2 == 1;
            const HttpResult r = leasing ? client.post(leasesPath(showId), seatsBody(seats))
                                         : client.post(holdPath(showId), seatsBody(seats));
            if (r.status == 201 || r.status == 200) {
                ++grants;
                std::lock_guard lock(mutex);
                for (const QString &seat : stringList(r.json().value(QStringLiteral("seat_ids")))) {
                    if (grantedTo.contains(seat))
                        doubleGrants << seat;
                    grantedTo.insert(seat, QStringLiteral("%1#%2").arg(c).arg(a));
                }
            } else if (r.status == 409 || (leasing && r.status == 422)) {
                ++refusals;
            } else {
                ++oddAnswers;
            }
        }
    });
    EXPECT_TRUE(doubleGrants.isEmpty()) << doubleGrants.join(QLatin1Char(',')).toStdString();
    EXPECT_EQ(oddAnswers.load(), 0);
    EXPECT_GT(grants.load(), 0);
    EXPECT_GT(refusals.load(), 0);
    // The table agrees with the answers: exactly the seats granted are taken, each by the kind that was granted it.
    EXPECT_EQ(seatsInStatus(server, showId, "leased") + seatsInStatus(server, showId, "held"), int(grantedTo.size()));
    expectSeatInvariants(server, showId);
    expectNoSeatInTwoLiveHolds(loadHolds(server, showId));
}

// The till retries an upload whose answer it lost while the first is still being booked, from several connections
// at once: every answer is the same booking, and there is one booking, one order and one cash payment.
TEST_F(Leases, ConcurrentUploadsOfOneSaleMakeOneBooking)
{
    const QString id = lease(*till, {QStringLiteral("B3"), QStringLiteral("B4")}).value(QStringLiteral("lease_id")).toString();
    const QJsonObject body = saleBody(9, {QStringLiteral("B3"), QStringLiteral("B4")}, 2 * kStandard, 2 * kStandard);
    constexpr int kUploads = 8;
    std::mutex mutex;
    QSet<QString> bookings;
    std::atomic<int> created{0};
    raceClients(server, std::vector<QString>(kUploads, tillToken), [&](int, HttpClient &client) {
        const HttpResult r = client.post(salesPath(id), body);
        if (r.status == 201) {
            ++created;
            std::lock_guard lock(mutex);
            bookings.insert(r.json().value(QStringLiteral("booking_id")).toString());
        }
    });
    EXPECT_EQ(created.load(), kUploads);
    EXPECT_EQ(bookings.size(), 1);
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM bookings")), 1);
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM orders")), 1);
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM payments")), 1);
    EXPECT_EQ(count(QStringLiteral("SELECT count(*) FROM lease_sales WHERE booking_id IS NOT NULL")), 1);
    expectSeatInvariants(server, showId);
}

namespace {
/** @brief A lease route's answer as the wire carries it: status, the headers a client reads and the body, with ids
 *  (<uuid>) and instants (<time>) masked. */
std::string leaseWire(const HttpResult &result)
{
    QString body = QString::fromUtf8(result.body);
    static const QRegularExpression uuid(QStringLiteral("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
    static const QRegularExpression instant(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"));
    body.replace(uuid, QStringLiteral("<uuid>"));
    body.replace(instant, QStringLiteral("<time>"));
    return (wireHead(result) + body.toUtf8()).toStdString();
}
std::string refusal(int status, const char *body)
{
    return std::to_string(status) + "\nContent-Type: application/json\n" + body;
}
} // namespace

// Every refusal of the lease routes, byte for byte: tills parse these answers (and an outage queue replays sales),
// so the insides of LeaseService may change but not this. Each is provoked for real; nothing it refuses changes.
TEST_F(Leases, EveryRefusalIsPinnedByteForByte)
{
    const QString id = lease(*till, {QStringLiteral("A1"), QStringLiteral("A2")}).value(QStringLiteral("lease_id")).toString();
    auto other = server.client(server.deviceToken(QStringLiteral("till")));
    auto cashier = server.client(server.staffToken(QStringLiteral("cashier")));
    const auto post = [](HttpClient &client, const QByteArray &path, const QJsonObject &body) { return leaseWire(client.post(path, body)); };

    // Placing a lease.
    EXPECT_EQ(post(*other, leasesPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("A2")})),
              refusal(409, R"({"error":"seats_unavailable","held_seats":["A2"],"message":"Some of these seats are held, leased or sold; none of them was leased to you."})"));
    EXPECT_EQ(post(*other, leasesPath(showId), seatsBody({QStringLiteral("A3"), QStringLiteral("Z9")})),
              refusal(400, R"({"error":"unknown_seat","message":"Some seat ids do not exist in this show.","unknown_seats":["Z9"]})"));
    EXPECT_EQ(post(*other, leasesPath(999999), seatsBody({QStringLiteral("A3")})),
              refusal(404, R"({"error":"show_not_found","message":"There is no show with this id."})"));
    EXPECT_EQ(post(*cashier, leasesPath(showId), seatsBody({QStringLiteral("A3")})),
              refusal(422, R"({"error":"lease_needs_till","message":"Seats are leased to a till: use the till's token or a session opened at a till."})"));
    EXPECT_EQ(post(*till, leasesPath(showId), seatsBody({QStringLiteral("B1"), QStringLiteral("B2"), QStringLiteral("B3"), QStringLiteral("B4"), QStringLiteral("B5")})),
              refusal(422, R"({"error":"lease_limit_reached","leased":2,"limit":6,"message":"This till already has 2 seats of this show leased and may have at most 6."})"));
    EXPECT_EQ(post(*other, leasesPath(showId), bestBody(7)),
              refusal(422, R"({"error":"lease_limit_reached","leased":0,"limit":6,"message":"This till already has 0 seats of this show leased and may have at most 6."})"));
    const auto keyed = [&](const QJsonObject &body) {
        return leaseWire(other->request("POST", leasesPath(showId), QJsonDocument(body).toJson(QJsonDocument::Compact),
                                        {{"Content-Type", "application/json"}, {"Idempotency-Key", "lease-wire"}}));
    };
    EXPECT_EQ(keyed(seatsBody({QStringLiteral("A3")})).substr(0, 4), "201\n");
    EXPECT_EQ(keyed(seatsBody({QStringLiteral("A4")})),
              refusal(422, R"({"error":"idempotency_key_reused","message":"This Idempotency-Key was used with a different request."})"));
    const qint64 soon = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addSecs(600));
    EXPECT_EQ(post(*till, leasesPath(soon), seatsBody({QStringLiteral("A1")})),
              refusal(422, R"({"error":"show_starting","message":"This show starts too soon for a lease: leased seats go back on sale at <time>.","return_by":"<time>"})"));
    const qint64 later = server.createShow(2, 4, QDateTime::currentDateTimeUtc().addDays(3), QDateTime::currentDateTimeUtc().addDays(1));
    EXPECT_EQ(post(*till, leasesPath(later), seatsBody({QStringLiteral("A1")})),
              refusal(422, R"({"error":"sales_closed","message":"Sales for this show have not opened yet."})"));
    auto manager = server.client(server.staffToken(QStringLiteral("manager")));
    ASSERT_EQ(putJson(*manager, "/api/v1/shows/" + QByteArray::number(showId) + "/lease-settings", QJsonObject{{QStringLiteral("seats_per_device"), 100}}).status, 200);
    EXPECT_EQ(post(*other, leasesPath(showId), bestBody(22)),
              refusal(409, R"({"available":21,"error":"not_enough_seats","message":"Only 21 seats of this show are free; nothing was leased."})"));

    // Reading and ending one.
    EXPECT_EQ(leaseWire(other->get(leasePath(id))), refusal(404, R"({"error":"lease_not_found","message":"There is no lease with this id for you."})"));
    EXPECT_EQ(leaseWire(other->del(leasePath(id))), refusal(404, R"({"error":"lease_not_found","message":"There is no lease with this id for you."})"));
    EXPECT_EQ(leaseWire(cashier->get(leasesPath(showId))),
              refusal(422, R"({"error":"lease_needs_till","message":"Seats are leased to a till: use the till's token or a session opened at a till."})"));
    EXPECT_EQ(leaseWire(manager->get("/api/v1/shows/999999/lease-settings")), refusal(404, R"({"error":"show_not_found","message":"There is no show with this id."})"));

    // Sales reported under it.
    ASSERT_EQ(till->post(salesPath(id), saleBody(1, {QStringLiteral("A1")}, kStandard, kStandard)).status, 201);
    EXPECT_EQ(post(*till, salesPath(id), saleBody(1, {QStringLiteral("A2")}, kStandard, kStandard)),
              refusal(409, R"({"device_seq":1,"error":"sale_conflict","message":"This device sequence number was already reported with a different sale; nothing was changed."})"));
    EXPECT_EQ(post(*till, salesPath(id), saleBody(2, {QStringLiteral("A2"), QStringLiteral("D1")}, kStandard + kPremium, 5000)),
              refusal(409, R"({"error":"seats_not_in_lease","message":"Some seats of this sale are not in the lease; nothing was changed.","seats":["D1"]})"));
    EXPECT_EQ(post(*till, salesPath(id), saleBody(2, {QStringLiteral("A1"), QStringLiteral("A2")}, 2 * kStandard, 5000)),
              refusal(409, R"({"error":"seats_not_leased","message":"Some seats of this sale are no longer leased to this lease; nothing was changed.","seats":["A1"]})"));
    EXPECT_EQ(post(*till, salesPath(id), saleBody(2, {QStringLiteral("A2")}, kPremium, 5000)),
              refusal(422, R"({"amount_minor":1250,"currency":"EUR","error":"price_mismatch","message":"These seats cost 1250 when they were sold, not the sale's amount; nothing was changed."})"));
    EXPECT_EQ(post(*till, salesPath(id), saleBody(2, {QStringLiteral("A2")}, kStandard, 100)),
              refusal(422, R"({"cash_due_minor":1250,"error":"insufficient_tender","message":"The cash handed over is less than the cash due."})"));
    EXPECT_EQ(post(*till, salesPath(id), saleBody(2, {QStringLiteral("A2")}, kStandard, kStandard, nowIso(86400 * 3))),
              refusal(422, R"({"created_at":"<time>","error":"sale_outside_lease","expires_at":"<time>","message":"The sale's time is outside the lease; nothing was changed."})"));
    EXPECT_EQ(post(*other, salesPath(id), saleBody(2, {QStringLiteral("A2")}, kStandard, kStandard)),
              refusal(404, R"({"error":"lease_not_found","message":"There is no lease with this id for you."})"));
    EXPECT_EQ(post(*cashier, salesPath(id), saleBody(2, {QStringLiteral("A2")}, kStandard, kStandard)),
              refusal(404, R"({"error":"lease_not_found","message":"There is no lease with this id for you."})"));
    ASSERT_EQ(till->del(leasePath(id)).status, 200);
    EXPECT_EQ(post(*till, salesPath(id), saleBody(2, {QStringLiteral("A2")}, kStandard, kStandard)),
              refusal(409, R"({"error":"lease_returned","message":"This lease was given back; no sale can be reported under it any more."})"));
}
