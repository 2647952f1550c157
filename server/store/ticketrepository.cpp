// SPDX-License-Identifier: AGPL-3.0-or-later
#include "store/ticketrepository.h"
#include "logging.h"
#include "store/staffrepository.h"

#include "core/isotime.h"
#include "core/keyseal.h"
#include "core/ticketcodec.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QUuid>
#include <algorithm>


namespace marquee::store {

namespace {
constexpr int kKeyCacheSeconds = 60;

bool isUuid(const QString &text)
{
    return !QUuid::fromString(text).isNull();
}

QString uuidText(const QUuid &id)
{
    return id.toString(QUuid::WithoutBraces);
}

QString jsonText(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

bool run(QSqlQuery &query, const char *what)
{
    if (query.exec())
        return true;
    qCWarning(lcStore) << what << "failed:" << query.lastError().text();
    return false;
}

bool insertOutbox(QSqlDatabase &db, const QString &type, const QString &aggregateId, const QJsonObject &payload)
{
    QSqlQuery query(db);
    if (!prepareQuery(query, QStringLiteral("INSERT INTO outbox (event_type, aggregate_id, payload) VALUES (?, ?, ?::jsonb)")))
        return false;
    query.addBindValue(type);
    query.addBindValue(aggregateId);
    query.addBindValue(jsonText(payload));
    return run(query, "insert outbox event");
}

bool insertRevocations(QSqlDatabase &db, const QStringList &ticketIds, const QString &reason)
{
    QSqlQuery query(db);
    if (!prepareQuery(query, QStringLiteral("INSERT INTO revocations (ticket_id, reason) SELECT t, ? FROM unnest(?::uuid[]) AS t")))
        return false;
    query.addBindValue(reason);
    query.addBindValue(toPgTextArray(ticketIds));
    return run(query, "insert revocations");
}

struct ShowTimes {
    qint64 venueId = 0;
    qint64 validFrom = 0;
    qint64 validUntil = 0;
};

std::optional<ShowTimes> showTimes(QSqlDatabase &db, qint64 showId, bool *ok)
{
    *ok = false;
    QSqlQuery query(db);
    // Valid from doors-open until the show ends (start + runtime).
    if (!prepareQuery(query, QStringLiteral(
            "SELECT sc.venue_id, extract(epoch FROM s.starts_at)::bigint, "
            "       extract(epoch FROM s.starts_at + make_interval(mins => m.runtime_min))::bigint "
            "  FROM shows s JOIN screens sc ON sc.screen_id = s.screen_id JOIN movies m ON m.movie_id = s.movie_id "
            " WHERE s.show_id = ?")))
        return std::nullopt;
    query.addBindValue(showId);
    if (!run(query, "read show times"))
        return std::nullopt;
    *ok = true;
    if (!query.next())
        return std::nullopt;
    const qint64 starts = query.value(1).toLongLong();
    return ShowTimes{query.value(0).toLongLong(), starts - TicketRepository::kDoorsOpenSecondsBeforeStart, query.value(2).toLongLong()};
}
} // namespace

TicketRepository::TicketRepository(const Database &database)
    : m_database(database)
    , m_delegations(database)
{
}

void TicketRepository::setKeyEncryptionKey(const QByteArray &keyEncryptionKey)
{
    m_keyEncryptionKey = keyEncryptionKey;
}

QByteArray TicketRepository::sealContext(qint64 venueId, const QByteArray &publicKey)
{
    return QByteArrayLiteral("marquee.signing-key.v1|") + QByteArray::number(venueId) + '|' + publicKey;
}

bool TicketRepository::checkKeyEncryptionKey(QSqlDatabase &db, QString *error)
{
    // The first server of a database leaves a known text sealed with its KEK; every other one must open it, also
    // before any signing key exists (migration 034).
    static const QByteArray kText = QByteArrayLiteral("marquee key-encryption key check");
    static const QByteArray kContext = QByteArrayLiteral("marquee.kek-check.v1");
    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral("INSERT INTO key_encryption_check (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING"));
    insert.addBindValue(KeySeal::seal(m_keyEncryptionKey, kText, kContext));
    QSqlQuery check(db);
    prepareQuery(check, QStringLiteral("SELECT sealed FROM key_encryption_check WHERE id = 1"));
    if (!run(insert, "record the key-encryption key check") || !run(check, "read the key-encryption key check") || !check.next()) {
        *error = QStringLiteral("cannot check the key-encryption key: %1").arg(check.lastError().text() + insert.lastError().text());
        return false;
    }
    if (KeySeal::open(m_keyEncryptionKey, check.value(0).toByteArray(), kContext) != kText) {
        *error = QStringLiteral("this server's key-encryption key is not the one the other servers of this database use (it "
                                "cannot open the check they left); every server of one database needs the same KEK file "
                                "(see docs/tickets.md)");
        return false;
    }
    return true;
}

bool TicketRepository::prepareSigningKeys(QString *error)
{
    if (m_keyEncryptionKey.size() != KeySeal::kKeyBytes) {
        *error = QStringLiteral("no key-encryption key for the ticket signing keys");
        return false;
    }
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive()) {
        *error = QStringLiteral("cannot begin a transaction: %1").arg(transaction.errorString());
        return false;
    }
    // Seeds written raw by schema 2: seal them now (the database never had the KEK, so only a server can).
    QSqlQuery raw(db);
    prepareQuery(raw, QStringLiteral("SELECT key_id, venue_id, public_key, private_key FROM signing_keys WHERE private_key IS NOT NULL FOR UPDATE"));
    if (!run(raw, "read raw signing keys")) {
        *error = raw.lastError().text();
        return false;
    }
    int sealed = 0;
    while (raw.next()) {
        const QByteArray box = KeySeal::seal(m_keyEncryptionKey, raw.value(3).toByteArray(), sealContext(raw.value(1).toLongLong(), raw.value(2).toByteArray()));
        QSqlQuery update(db);
        prepareQuery(update, QStringLiteral("UPDATE signing_keys SET private_key_sealed = ?, private_key = NULL WHERE key_id = ?"));
        update.addBindValue(box);
        update.addBindValue(raw.value(0).toLongLong());
        if (box.isEmpty() || !run(update, "seal signing key")) {
            *error = QStringLiteral("cannot seal signing key %1").arg(raw.value(0).toLongLong());
            return false;
        }
        ++sealed;
    }
    QSqlQuery live(db);
    prepareQuery(live, QStringLiteral("SELECT key_id, venue_id, public_key, private_key_sealed FROM signing_keys "
                                      " WHERE not_after > now() AND private_key_sealed IS NOT NULL ORDER BY key_id"));
    if (!run(live, "read sealed signing keys")) {
        *error = live.lastError().text();
        return false;
    }
    while (live.next()) {
        const auto seed = KeySeal::open(m_keyEncryptionKey, live.value(3).toByteArray(), sealContext(live.value(1).toLongLong(), live.value(2).toByteArray()));
        if (!seed || TicketCodec::publicKeyOf(*seed) != live.value(2).toByteArray()) {
            *error = QStringLiteral("ticket signing key %1 does not open with this server's key-encryption key; every server of one "
                                    "database needs the same KEK file (see docs/tickets.md)")
                         .arg(live.value(0).toLongLong());
            return false;
        }
    }
    if (!checkKeyEncryptionKey(db, error))
        return false;
    if (!transaction.commit()) {
        *error = QStringLiteral("cannot commit the sealed signing keys");
        return false;
    }
    if (sealed > 0)
        qCInfo(lcStore) << "sealed" << sealed << "signing keys that were stored raw";
    return true;
}

std::optional<TicketRepository::SigningKey> TicketRepository::currentKey(QSqlDatabase &db, qint64 venueId, const QDateTime &neededUntil)
{
    auto select = [&](bool *ok) -> std::optional<std::pair<SigningKey, QDateTime>> {
        *ok = false;
        QSqlQuery query(db);
        if (!prepareQuery(query, QStringLiteral("SELECT key_id, private_key_sealed, not_after, public_key FROM signing_keys "
                                                " WHERE venue_id = ? AND retired_at IS NULL")))
            return std::nullopt;
        query.addBindValue(venueId);
        if (!run(query, "read signing key"))
            return std::nullopt;
        if (!query.next()) {
            *ok = true;
            return std::nullopt;
        }
        const auto seed = KeySeal::open(m_keyEncryptionKey, query.value(1).toByteArray(), sealContext(venueId, query.value(3).toByteArray()));
        if (!seed) {
            // Fail closed: no ticket is signed with a key this server cannot prove it owns (wrong or missing KEK).
            qCCritical(lcStore) << "signing key" << query.value(0).toLongLong() << "does not open with this server's key-encryption key";
            return std::nullopt;
        }
        *ok = true;
        return std::make_pair(SigningKey{query.value(0).toLongLong(), *seed}, query.value(2).toDateTime());
    };
    bool ok = false;
    auto found = select(&ok);
    if (!ok)
        return std::nullopt;
    if (found && found->second >= neededUntil)
        return found->first;
    if (found) {
        // The key would stop verifying before this ticket expires: retire it. A concurrent issuer blocks on this
        // row until we commit and then finds retired_at set, so exactly one replacement is created.
        QSqlQuery retire(db);
        prepareQuery(retire, QStringLiteral("UPDATE signing_keys SET retired_at = now() WHERE key_id = ? AND retired_at IS NULL"));
        retire.addBindValue(found->first.keyId);
        if (!run(retire, "retire signing key"))
            return std::nullopt;
    }
    const auto pair = TicketCodec::generateKeyPair();
    if (!pair)
        return std::nullopt;
    const QByteArray sealedSeed = KeySeal::seal(m_keyEncryptionKey, pair->privateKey, sealContext(venueId, pair->publicKey));
    if (sealedSeed.isEmpty()) {
        qCCritical(lcStore) << "cannot seal a new signing key (no key-encryption key?)";
        return std::nullopt;
    }
    QDateTime notAfter = QDateTime::currentDateTimeUtc().addDays(kKeyLifetimeDays);
    if (notAfter < neededUntil)
        notAfter = neededUntil.addDays(1);
    QSqlQuery insert(db);
    // The partial unique index allows one unretired key per venue: of two first issuers, one inserts, the other
    // waits for its commit, does nothing, and reads the winner's key below.
    prepareQuery(insert, QStringLiteral("INSERT INTO signing_keys (venue_id, public_key, private_key_sealed, not_after) VALUES (?, ?, ?, ?::timestamptz) "
                                        "ON CONFLICT (venue_id) WHERE retired_at IS NULL DO NOTHING"));
    insert.addBindValue(venueId);
    insert.addBindValue(pair->publicKey);
    insert.addBindValue(sealedSeed);
    insert.addBindValue(toIsoUtc(notAfter));
    if (!run(insert, "create signing key"))
        return std::nullopt;
    found = select(&ok);
    if (!found)
        return std::nullopt;
    return found->first;
}

std::optional<QList<IssuedTicket>> TicketRepository::issueTickets(QSqlDatabase &db, const QString &bookingId, qint64 showId,
                                                                  const QStringList &seatIds, const QString &holdId)
{
    if (!isUuid(bookingId) || seatIds.isEmpty())
        return std::nullopt;
    QStringList seats = seatIds;
    std::sort(seats.begin(), seats.end());
    if (std::adjacent_find(seats.begin(), seats.end()) != seats.end())
        return std::nullopt;

    bool ok = false;
    const auto times = showTimes(db, showId, &ok);
    if (!times)
        return std::nullopt;
    {
        QSqlQuery count(db);
        prepareQuery(count, QStringLiteral("SELECT count(*) FROM show_seats WHERE show_id = ? AND seat_id = ANY (?::text[])"));
        count.addBindValue(showId);
        count.addBindValue(toPgTextArray(seats));
        if (!run(count, "count seats") || !count.next() || count.value(0).toInt() != seats.size())
            return std::nullopt;
    }
    // A sale a till made under a delegated lease and reported with the tickets it signed itself: those are the
    // booking's tickets (the printed ticket is the one that enters), and no venue-signed second code is made.
    if (isUuid(holdId)) {
        QSqlQuery sale(db);
        prepareQuery(sale, QStringLiteral("SELECT ls.tickets::text, d.delegation_id::text FROM lease_sales ls "
                                          "  JOIN ticket_delegations d ON d.lease_id = ls.lease_id WHERE ls.hold_id = ?::uuid"));
        sale.addBindValue(holdId);
        if (!run(sale, "read the tickets of a lease sale"))
            return std::nullopt;
        if (sale.next()) {
            const QJsonArray saleTickets = QJsonDocument::fromJson(sale.value(0).toString().toUtf8()).array();
            if (DelegationRepository::hasDelegatedCodes(saleTickets))
                return insertDelegatedTickets(db, bookingId, showId, seats, sale.value(1).toString(), saleTickets);
        }
    }

    const auto key = currentKey(db, times->venueId, QDateTime::fromSecsSinceEpoch(times->validUntil, Qt::UTC));
    if (!key)
        return std::nullopt;

    QList<IssuedTicket> issued;
    QStringList ids;
    QStringList qrs;
    for (const QString &seat : std::as_const(seats)) {
        TicketPayload payload;
        payload.keyId = quint32(key->keyId);
        payload.ticketId = QUuid::createUuid();
        payload.showId = showId;
        payload.seatId = seat;
        payload.validFrom = times->validFrom;
        payload.validUntil = times->validUntil;
        const QString qr = TicketCodec::sign(payload, key->privateKey);
        if (qr.isEmpty()) {
            qCWarning(lcStore) << "cannot sign a ticket for seat" << seat << "of show" << showId;
            return std::nullopt;
        }
        issued.append({uuidText(payload.ticketId), seat, qr});
        ids << uuidText(payload.ticketId);
        qrs << qr;
    }

    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral(
        "INSERT INTO tickets (ticket_id, booking_id, show_id, seat_id, key_id, qr, valid_from, valid_until) "
        "SELECT t.id, ?::uuid, ?, t.seat, ?, t.qr, to_timestamp(?), to_timestamp(?) "
        "  FROM unnest(?::uuid[], ?::text[], ?::text[]) AS t(id, seat, qr)"));
    insert.addBindValue(bookingId);
    insert.addBindValue(showId);
    insert.addBindValue(key->keyId);
    insert.addBindValue(times->validFrom);
    insert.addBindValue(times->validUntil);
    insert.addBindValue(toPgTextArray(ids));
    insert.addBindValue(toPgTextArray(seats));
    insert.addBindValue(toPgTextArray(qrs));
    if (!run(insert, "insert tickets"))
        return std::nullopt;
    if (!insertIssuedEvent(db, bookingId, showId, issued))
        return std::nullopt;
    return issued;
}

std::optional<QList<IssuedTicket>> TicketRepository::insertDelegatedTickets(QSqlDatabase &db, const QString &bookingId, qint64 showId,
                                                                            const QStringList &seats, const QString &delegationId,
                                                                            const QJsonArray &saleTickets)
{
    bool ok = false;
    const auto stored = m_delegations.byId(db, delegationId, false, &ok);
    if (!stored || stored->delegation.showId != showId)
        return std::nullopt;
    // Checked when the sale was reported; checked again here, so that nothing but what the device key signed for
    // these seats is ever put on record as the booking's tickets.
    const auto checked = DelegationRepository::checkSaleTickets(stored->delegation, seats, saleTickets);
    if (const auto *refusal = std::get_if<SaleTicketsRefusal>(&checked)) {
        qCWarning(lcStore) << "the device-signed tickets of a lease sale do not check out for booking" << bookingId << refusal->reason;
        return std::nullopt;
    }
    QList<IssuedTicket> issued;
    QStringList ids, seatIds, qrs, froms, untils;
    for (const DelegatedSaleTicket &ticket : std::get<QList<DelegatedSaleTicket>>(checked)) {
        issued.append({ticket.ticketId, ticket.seatId, ticket.qr});
        ids << ticket.ticketId;
        seatIds << ticket.seatId;
        qrs << ticket.qr;
        froms << QString::number(ticket.validFrom);
        untils << QString::number(ticket.validUntil);
    }
    std::sort(issued.begin(), issued.end(), [](const IssuedTicket &a, const IssuedTicket &b) { return a.seatId < b.seatId; });
    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral(
        "INSERT INTO tickets (ticket_id, booking_id, show_id, seat_id, key_id, delegation_id, qr, valid_from, valid_until) "
        "SELECT t.id, ?::uuid, ?, t.seat, NULL, ?::uuid, t.qr, to_timestamp(t.valid_from), to_timestamp(t.valid_until) "
        "  FROM unnest(?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS t(id, seat, qr, valid_from, valid_until)"));
    insert.addBindValue(bookingId);
    insert.addBindValue(showId);
    insert.addBindValue(delegationId);
    insert.addBindValue(toPgTextArray(ids));
    insert.addBindValue(toPgTextArray(seatIds));
    insert.addBindValue(toPgTextArray(qrs));
    insert.addBindValue(toPgTextArray(froms));
    insert.addBindValue(toPgTextArray(untils));
    if (!run(insert, "insert delegated tickets") || !insertIssuedEvent(db, bookingId, showId, issued))
        return std::nullopt;
    return issued;
}

bool TicketRepository::insertIssuedEvent(QSqlDatabase &db, const QString &bookingId, qint64 showId, const QList<IssuedTicket> &issued)
{
    QJsonArray tickets;
    for (const IssuedTicket &ticket : issued)
        tickets.append(QJsonObject{{QStringLiteral("ticket_id"), ticket.ticketId}, {QStringLiteral("seat_id"), ticket.seatId}});
    return insertOutbox(db, QStringLiteral("ticket.issued"), bookingId,
                        QJsonObject{{QStringLiteral("booking_id"), bookingId}, {QStringLiteral("show_id"), showId},
                                    {QStringLiteral("tickets"), tickets}});
}

std::optional<TicketDelegation> TicketRepository::issueDelegation(QSqlDatabase &db, const QString &leaseId, const QByteArray &devicePublicKey)
{
    if (!isUuid(leaseId) || devicePublicKey.size() != TicketCodec::kKeyBytes)
        return std::nullopt;
    QSqlQuery lease(db);
    // sell_until is the expiry rounded down to the second (a cast would round half up): a device must never sign a
    // sale the server then refuses as sold after the lease ended.
    prepareQuery(lease, QStringLiteral("SELECT show_id, device_id, seat_ids::text, floor(extract(epoch FROM expires_at))::bigint "
                                       "  FROM seat_leases WHERE lease_id = ?::uuid"));
    lease.addBindValue(leaseId);
    if (!run(lease, "read the lease to delegate") || !lease.next())
        return std::nullopt;
    TicketDelegation delegation;
    delegation.delegationId = QUuid::createUuid();
    delegation.leaseId = QUuid::fromString(leaseId);
    delegation.showId = lease.value(0).toLongLong();
    delegation.deviceId = lease.value(1).toLongLong();
    delegation.seatIds = DelegationCodec::canonicalSeats(fromPgTextArray(lease.value(2).toString()));
    delegation.sellUntil = lease.value(3).toLongLong();
    delegation.devicePublicKey = devicePublicKey;
    bool ok = false;
    const auto times = showTimes(db, delegation.showId, &ok);
    if (!times)
        return std::nullopt;
    // The window of the tickets the venue would issue for the show itself, and a key that verifies until its end.
    delegation.validFrom = times->validFrom;
    delegation.validUntil = times->validUntil;
    const auto key = currentKey(db, times->venueId, QDateTime::fromSecsSinceEpoch(times->validUntil, Qt::UTC));
    if (!key)
        return std::nullopt;
    delegation.keyId = quint32(key->keyId);
    if (!DelegationCodec::sign(delegation, key->privateKey)) {
        qCWarning(lcStore) << "cannot sign the delegation of lease" << leaseId;
        return std::nullopt;
    }
    if (!m_delegations.insert(db, delegation, times->venueId))
        return std::nullopt;
    return delegation;
}

bool TicketRepository::seatTakenByAnotherTicket(QSqlDatabase &db, qint64 showId, const QString &seatId, const QString &ticketId, bool *ok)
{
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT 1 FROM tickets WHERE show_id = ? AND seat_id = ? AND state = 'valid' AND ticket_id <> ?::uuid"));
    query.addBindValue(showId);
    query.addBindValue(seatId);
    query.addBindValue(ticketId);
    *ok = run(query, "read the seat's ticket");
    return *ok && query.next();
}

std::optional<StoredDelegation> TicketRepository::verifiedDelegation(QSqlDatabase &db, const QUuid &delegationId, bool *ok)
{
    auto stored = m_delegations.byId(db, uuidText(delegationId), true, ok);
    if (!stored)
        return std::nullopt;
    // The row is the server's own, but only a delegation its venue key signed is honoured: a row written by hand
    // (or by a bug) does not let a device key admit anybody.
    bool keysOk = true;
    QHash<quint32, QByteArray> keys = verificationKeys(false, &keysOk);
    if (!keys.contains(stored->delegation.keyId))
        keys = verificationKeys(true, &keysOk);
    *ok = keysOk;
    if (DelegationCodec::verify(stored->delegation, keys) != TicketCheck::Ok) {
        qCWarning(lcStore) << "delegation" << uuidText(delegationId) << "does not verify with its venue key; its tickets are refused";
        return std::nullopt;
    }
    return stored;
}

bool TicketRepository::revokeTicketsOfBooking(QSqlDatabase &db, const QString &bookingId, const QString &reason)
{
    if (!isUuid(bookingId))
        return false;
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral(
        "UPDATE tickets SET state = 'revoked', revoked_at = now(), reason = ? "
        " WHERE booking_id = ?::uuid AND state = 'valid' RETURNING ticket_id::text"));
    query.addBindValue(reason);
    query.addBindValue(bookingId);
    if (!run(query, "revoke tickets"))
        return false;
    QStringList revoked;
    while (query.next())
        revoked << query.value(0).toString();
    if (revoked.isEmpty())
        return true;
    revoked.sort();
    if (!insertRevocations(db, revoked, reason))
        return false;
    return insertOutbox(db, QStringLiteral("ticket.revoked"), bookingId,
                        QJsonObject{{QStringLiteral("booking_id"), bookingId},
                                    {QStringLiteral("ticket_ids"), QJsonArray::fromStringList(revoked)},
                                    {QStringLiteral("reason"), reason}});
}

std::optional<IssuedTicket> TicketRepository::reissueTicket(QSqlDatabase &db, const QString &ticketId, const QString &reason)
{
    if (!isUuid(ticketId))
        return std::nullopt;
    QSqlQuery revoke(db);
    prepareQuery(revoke, QStringLiteral(
        "UPDATE tickets SET state = 'revoked', revoked_at = now(), reason = ? "
        " WHERE ticket_id = ?::uuid AND state = 'valid' RETURNING booking_id::text, show_id, seat_id"));
    revoke.addBindValue(reason);
    revoke.addBindValue(ticketId);
    if (!run(revoke, "revoke ticket for reissue") || !revoke.next())
        return std::nullopt;
    const QString bookingId = revoke.value(0).toString();
    const qint64 showId = revoke.value(1).toLongLong();
    const QString seatId = revoke.value(2).toString();
    if (!insertRevocations(db, {ticketId}, reason))
        return std::nullopt;
    if (!insertOutbox(db, QStringLiteral("ticket.revoked"), bookingId,
                      QJsonObject{{QStringLiteral("booking_id"), bookingId},
                                  {QStringLiteral("ticket_ids"), QJsonArray{ticketId}},
                                  {QStringLiteral("reason"), reason}}))
        return std::nullopt;
    const auto issued = issueTickets(db, bookingId, showId, {seatId});
    if (!issued || issued->size() != 1)
        return std::nullopt;
    QSqlQuery link(db);
    prepareQuery(link, QStringLiteral("UPDATE tickets SET replaced_by = ?::uuid WHERE ticket_id = ?::uuid"));
    link.addBindValue(issued->first().ticketId);
    link.addBindValue(ticketId);
    if (!run(link, "link reissued ticket"))
        return std::nullopt;
    return issued->first();
}

ReissueOutcome TicketRepository::reissue(const Principal &actor, const QString &ticketId, const QString &reason)
{
    ReissueOutcome out;
    if (!isUuid(ticketId) || ticketId.size() != 36) {
        out.kind = ReissueOutcome::Kind::NotFound;
        return out;
    }
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive())
        return out;
    // A ticket's booking never changes, so it can be read before the lock. The booking row is locked first,
    // as BookingRepository::cancel does: a cancel running now either revokes the new ticket too (it waits for
    // this commit and then reads it) or has already revoked the old one (this call then answers Revoked).
    QSqlQuery owner(db);
    prepareQuery(owner, QStringLiteral("SELECT booking_id::text FROM tickets WHERE ticket_id = ?::uuid"));
    owner.addBindValue(ticketId);
    if (!run(owner, "read ticket booking"))
        return out;
    if (!owner.next()) {
        out.kind = ReissueOutcome::Kind::NotFound;
        return out;
    }
    out.bookingId = owner.value(0).toString();
    QSqlQuery booking(db);
    prepareQuery(booking, QStringLiteral("SELECT state FROM bookings WHERE booking_id = ?::uuid FOR UPDATE"));
    booking.addBindValue(out.bookingId);
    if (!run(booking, "lock booking for reissue"))
        return out;
    const bool bookingConfirmed = booking.next() && booking.value(0).toString() == QLatin1String("confirmed");

    QSqlQuery ticket(db);
    prepareQuery(ticket, QStringLiteral(
        "SELECT t.state, t.show_id, t.seat_id, r.ticket_id::text, r.qr, r.state, "
        "       EXISTS (SELECT 1 FROM checkin_firsts c WHERE c.ticket_id = t.ticket_id) "
        "  FROM tickets t LEFT JOIN tickets r ON r.ticket_id = t.replaced_by WHERE t.ticket_id = ?::uuid FOR UPDATE OF t"));
    ticket.addBindValue(ticketId);
    if (!run(ticket, "lock ticket for reissue") || !ticket.next())
        return out;
    out.showId = ticket.value(1).toLongLong();
    const QString seatId = ticket.value(2).toString();
    if (ticket.value(0).toString() != QLatin1String("valid")) {
        if (bookingConfirmed && !ticket.value(3).isNull() && ticket.value(5).toString() == QLatin1String("valid")) {
            out.kind = ReissueOutcome::Kind::Replayed;
            out.ticket = {ticket.value(3).toString(), seatId, ticket.value(4).toString()};
        } else {
            out.kind = ReissueOutcome::Kind::Revoked;
        }
        return out;
    }
    if (!bookingConfirmed) {
        out.kind = ReissueOutcome::Kind::Revoked;
        return out;
    }
    if (ticket.value(6).toBool()) {
        out.kind = ReissueOutcome::Kind::AlreadyCheckedIn;
        return out;
    }
    const auto issued = reissueTicket(db, ticketId, reason);
    if (!issued)
        return out;
    const AuditEntry audit{QStringLiteral("ticket.reissue"), QStringLiteral("ticket:%1").arg(ticketId), reason,
                           QJsonObject{{QStringLiteral("new_ticket_id"), issued->ticketId},
                                       {QStringLiteral("booking_id"), out.bookingId},
                                       {QStringLiteral("show_id"), out.showId},
                                       {QStringLiteral("seat_id"), seatId}}};
    if (!StaffRepository::appendAudit(db, actor, audit) || !transaction.commit())
        return out;
    out.kind = ReissueOutcome::Kind::Reissued;
    out.ticket = *issued;
    return out;
}

std::optional<QList<IssuedTicket>> TicketRepository::validTicketsOfBooking(const QString &bookingId)
{
    if (!isUuid(bookingId))
        return QList<IssuedTicket>{};
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT ticket_id::text, seat_id, qr FROM tickets WHERE booking_id = ?::uuid AND state = 'valid' ORDER BY seat_id"));
    query.addBindValue(bookingId);
    if (!run(query, "read tickets of booking"))
        return std::nullopt;
    QList<IssuedTicket> tickets;
    while (query.next())
        tickets.append({query.value(0).toString(), query.value(1).toString(), query.value(2).toString()});
    return tickets;
}

std::optional<QList<PublicSigningKey>> TicketRepository::publicKeys()
{
    QSqlQuery query(m_database.connection());
    prepareQuery(query, QStringLiteral("SELECT key_id, venue_id, public_key, not_after, retired_at IS NOT NULL FROM signing_keys "
                                       " WHERE not_after > now() ORDER BY key_id DESC"));
    if (!run(query, "read public keys"))
        return std::nullopt;
    QList<PublicSigningKey> keys;
    while (query.next())
        keys.append({query.value(0).toLongLong(), query.value(1).toLongLong(), query.value(2).toByteArray(),
                     query.value(3).toDateTime(), query.value(4).toBool()});
    return keys;
}

std::optional<qint64> TicketRepository::rotateKey(qint64 venueId, QString *error)
{
    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive()) {
        *error = QStringLiteral("cannot begin a transaction: %1").arg(transaction.errorString());
        return std::nullopt;
    }
    QSqlQuery venue(db);
    prepareQuery(venue, QStringLiteral("SELECT 1 FROM venues WHERE venue_id = ? FOR KEY SHARE"));
    venue.addBindValue(venueId);
    if (!run(venue, "read venue")) {
        *error = venue.lastError().text();
        return std::nullopt;
    }
    if (!venue.next()) {
        *error = QStringLiteral("there is no venue %1").arg(venueId);
        return std::nullopt;
    }
    QSqlQuery retire(db);
    prepareQuery(retire, QStringLiteral("UPDATE signing_keys SET retired_at = now() WHERE venue_id = ? AND retired_at IS NULL"));
    retire.addBindValue(venueId);
    if (!run(retire, "retire signing key")) {
        *error = retire.lastError().text();
        return std::nullopt;
    }
    const auto key = currentKey(db, venueId, QDateTime::currentDateTimeUtc());
    if (!key || !transaction.commit()) {
        *error = QStringLiteral("cannot create the new key: %1").arg(db.lastError().text());
        return std::nullopt;
    }
    QMutexLocker locker(&m_keysMutex);
    m_keysLoadedAt = {};
    return key->keyId;
}

std::optional<QList<Revocation>> TicketRepository::revocations(qint64 afterCursor, int limit)
{
    QSqlDatabase db = m_database.connection();
    // Number what has committed since the last reader (see mq_publish_feed in 002_tickets.sql and 009) before
    // paging, queueing behind a running publisher so that every revocation committed before this call is served.
    QSqlQuery publish(db);
    if (!publish.exec(QStringLiteral("SELECT mq_publish_feed(1000, true)")))
        qCWarning(lcStore) << "publish feed failed:" << publish.lastError().text();
    QSqlQuery query(db);
    prepareQuery(query, QStringLiteral("SELECT cursor, ticket_id::text, revoked_at, reason FROM revocations "
                                       " WHERE cursor > ? ORDER BY cursor LIMIT ?"));
    query.addBindValue(afterCursor);
    query.addBindValue(limit);
    if (!run(query, "read revocations"))
        return std::nullopt;
    QList<Revocation> list;
    while (query.next())
        list.append({query.value(0).toLongLong(), query.value(1).toString(), query.value(2).toDateTime(), query.value(3).toString()});
    return list;
}

QHash<quint32, QByteArray> TicketRepository::verificationKeys(bool reload, bool *ok)
{
    QMutexLocker locker(&m_keysMutex);
    *ok = true;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (!reload && m_keysLoadedAt.isValid() && m_keysLoadedAt.secsTo(now) < kKeyCacheSeconds)
        return m_keys;
    locker.unlock();
    const auto keys = publicKeys();
    locker.relock();
    if (!keys) {
        *ok = false;
        return m_keys;
    }
    m_keys.clear();
    for (const PublicSigningKey &key : *keys)
        m_keys.insert(quint32(key.keyId), key.publicKey);
    m_keysLoadedAt = now;
    return m_keys;
}

CheckinOutcome TicketRepository::checkIn(const CheckinRequest &request)
{
    CheckinOutcome outcome;
    bool ok = false;
    TicketVerification verification = TicketCodec::verify(request.qr, verificationKeys(false, &ok));
    if (!ok)
        return outcome;
    if (verification.result == TicketCheck::Malformed) {
        outcome.status = CheckinOutcome::Status::MalformedQr;
        return outcome;
    }
    if (verification.result == TicketCheck::UnknownKey) {
        // A key created since the cache was filled (rotation, another server): look once more.
        verification = TicketCodec::verify(request.qr, verificationKeys(true, &ok));
        if (!ok)
            return outcome;
    }

    const QByteArray fingerprint = QCryptographicHash::hash(
        request.qr.toUtf8() + '|' + toIsoUtc(request.scannedAt).toUtf8() + '|'
            + (request.doorShowId ? QByteArray::number(*request.doorShowId) : QByteArray())
            + (request.doorVenueId ? '|' + QByteArray::number(*request.doorVenueId) : QByteArray()), QCryptographicHash::Sha256).toHex();

    QSqlDatabase db = m_database.connection();
    Transaction transaction(db);
    if (!transaction.isActive())
        return outcome;
    // Uploads with the same nonce queue here, so the second one reads the first one's stored answer.
    QSqlQuery lock(db);
    prepareQuery(lock, QStringLiteral("SELECT pg_advisory_xact_lock(hashtextextended(?, 3))"));
    lock.addBindValue(request.nonce);
    if (!run(lock, "lock check-in nonce"))
        return outcome;
    QSqlQuery stored(db);
    prepareQuery(stored, QStringLiteral("SELECT response::text, request_hash FROM checkins WHERE nonce = ?"));
    stored.addBindValue(request.nonce);
    if (!run(stored, "read stored check-in"))
        return outcome;
    if (stored.next()) {
        if (stored.value(1).toString().toLatin1() != fingerprint) {
            outcome.status = CheckinOutcome::Status::NonceReused;
            return outcome;
        }
        outcome.body = QJsonDocument::fromJson(stored.value(0).toString().toUtf8()).object();
        outcome.status = CheckinOutcome::Status::Answered;
        return outcome;
    }

    // A device-signed ticket: its delegation, genuine (signed by the venue key) and locked FOR SHARE, so that a
    // revocation being written is waited for, names the device key that must have signed it.
    std::optional<StoredDelegation> delegation;
    if (verification.result == TicketCheck::UnknownDelegation) {
        bool delegationOk = false;
        delegation = verifiedDelegation(db, verification.payload.delegationId, &delegationOk);
        if (!delegationOk)
            return outcome;
        if (delegation)
            verification = TicketCodec::verify(request.qr, {}, {{delegation->delegation.delegationId, delegation->delegation.devicePublicKey}});
    }

    QString result;
    bool mismatch = false; ///< signed correctly, but not what the ticket's record says
    QJsonValue ticket = QJsonValue::Null;
    QDateTime firstScannedAt;
    QString ticketId;
    const TicketPayload &payload = verification.payload;
    if (verification.result == TicketCheck::UnknownKey) {
        result = QStringLiteral("unknown_key");
    } else if (verification.result == TicketCheck::UnknownDelegation) {
        result = QStringLiteral("unknown_delegation");
    } else if (verification.result == TicketCheck::InvalidSignature) {
        result = QStringLiteral("invalid_signature");
    } else if (delegation && DelegationCodec::covers(delegation->delegation, payload) != DelegationCover::Covered) {
        // Signed by the lease's device key, but for a seat, show or window its delegation never allowed: whatever
        // the device claims in it is not trusted, and it is not a ticket of anything on record.
        qCWarning(lcStore).noquote() << "check-in: a device-signed code outside its delegation"
                                     << uuidText(payload.delegationId) << "(" << toString(DelegationCodec::covers(delegation->delegation, payload)) << ")";
        result = QStringLiteral("outside_delegation");
    } else {
        ticketId = uuidText(payload.ticketId);
        QSqlQuery read(db);
        prepareQuery(read, QStringLiteral(
            "SELECT t.state, sc.name, s.starts_at, t.show_id, t.seat_id, coalesce(t.key_id, 0), "
            "       extract(epoch FROM t.valid_from)::bigint, extract(epoch FROM t.valid_until)::bigint, sc.venue_id, "
            "       coalesce(t.delegation_id::text, '') "
            "FROM tickets t JOIN shows s ON s.show_id = t.show_id "
            "  JOIN screens sc ON sc.screen_id = s.screen_id WHERE t.ticket_id = ?::uuid FOR SHARE OF t"));
        // FOR SHARE: a cancellation that has locked the booking's tickets is waited for, and its revocation is what
        // this scan then reads (revoked); a cancellation that comes after waits for this scan and counts it.
        read.addBindValue(ticketId);
        if (!run(read, "read ticket"))
            return outcome;
        QJsonObject fields{{QStringLiteral("ticket_id"), ticketId},
                           {QStringLiteral("show_id"), payload.showId},
                           {QStringLiteral("seat_id"), payload.seatId}};
        const bool known = read.next();
        // The record decides, not the code: a code signed for this ticket id but naming another show, seat, window
        // or key was not issued by this server (a stolen or misused key), however good its signature.
        const QString recordDelegation = known ? read.value(9).toString() : QString();
        const bool matchesRecord = known && read.value(3).toLongLong() == payload.showId && read.value(4).toString() == payload.seatId
            && read.value(5).toLongLong() == qint64(payload.keyId) && read.value(6).toLongLong() == payload.validFrom
            && read.value(7).toLongLong() == payload.validUntil
            && recordDelegation == (payload.isDelegated() ? uuidText(payload.delegationId) : QString());
        // A device-signed ticket whose sale has not reached the server yet: admitted by its signature (docs/tickets.md,
        // "Delegated tickets at the door"), and its first scan counts once the sale books it.
        const bool unreported = !known && delegation.has_value();
        const qint64 venueOfTicket = unreported ? delegation->venueId : (known ? read.value(8).toLongLong() : 0);
        if (known && !matchesRecord) {
            qCWarning(lcStore).noquote() << "check-in: a correctly signed code for ticket" << ticketId
                                         << "does not match its record (show, seat, window or key); refused as invalid_signature";
            result = QStringLiteral("invalid_signature");
            mismatch = true;
        } else if (known) {
            fields.insert(QStringLiteral("screen"), read.value(1).toString());
            fields.insert(QStringLiteral("starts_at"), toIsoUtc(read.value(2).toDateTime()));
        }
        if (!mismatch)
            ticket = fields; // a mismatch trusts nothing in the code: ticket stays null
        const qint64 scanned = request.scannedAt.toSecsSinceEpoch();
        if (mismatch) {
            // Decided above; the ticket id stays in the stored check-in, so the forged scan is on the ticket's record.
        } else if (unreported && seatTakenByAnotherTicket(db, payload.showId, payload.seatId, ticketId, &ok)) {
            // The seat's booking has another ticket (the sale was reported without this one): that one is the seat's.
            result = QStringLiteral("revoked");
        } else if (!ok) {
            return outcome;
        } else if (unreported && delegation->revoked()) {
            // Its lease ended before this sale was reported: until the till uploads it, the ticket does not enter.
            result = QStringLiteral("delegation_revoked");
        } else if (!unreported && (!known || read.value(0).toString() != QLatin1String("valid"))) {
            // A correctly signed ticket that is not on record was never issued (its transaction rolled back): not valid.
            result = QStringLiteral("revoked");
            if (!known)
                ticketId.clear();
        } else if (request.doorVenueId && *request.doorVenueId != venueOfTicket) {
            // Another venue's ticket, signed with that venue's genuine key: not for this door, and not marked used
            // here (a photo of it scanned at the wrong venue must not spend it).
            result = QStringLiteral("wrong_venue");
        } else if (request.doorShowId && *request.doorShowId != payload.showId) {
            result = QStringLiteral("wrong_show");
        } else if (scanned < payload.validFrom) {
            result = QStringLiteral("not_yet_valid");
        } else if (scanned >= payload.validUntil) {
            result = QStringLiteral("expired");
        } else {
            // First scan wins: a conditional insert on the ticket's primary key decides, never a read first.
            QSqlQuery first(db);
            prepareQuery(first, QStringLiteral(
                "INSERT INTO checkin_firsts (ticket_id, scanned_at, nonce, device) VALUES (?::uuid, ?::timestamptz, ?, ?) "
                "ON CONFLICT (ticket_id) DO NOTHING RETURNING scanned_at"));
            first.addBindValue(ticketId);
            first.addBindValue(toIsoUtc(request.scannedAt));
            first.addBindValue(request.nonce);
            first.addBindValue(request.device);
            if (!run(first, "claim first scan"))
                return outcome;
            if (first.next()) {
                result = QStringLiteral("ok");
                firstScannedAt = first.value(0).toDateTime();
            } else {
                QSqlQuery earlier(db);
                prepareQuery(earlier, QStringLiteral("SELECT scanned_at FROM checkin_firsts WHERE ticket_id = ?::uuid"));
                earlier.addBindValue(ticketId);
                if (!run(earlier, "read first scan") || !earlier.next())
                    return outcome;
                result = QStringLiteral("already_redeemed");
                firstScannedAt = earlier.value(0).toDateTime();
            }
        }
    }

    QJsonObject body{{QStringLiteral("result"), result}, {QStringLiteral("ticket"), ticket}};
    if (mismatch)
        body.insert(QStringLiteral("reason"), QStringLiteral("record_mismatch"));
    if (firstScannedAt.isValid())
        body.insert(QStringLiteral("first_scanned_at"), toIsoUtc(firstScannedAt));
    QJsonObject auditDetail{{QStringLiteral("result"), result},
                            {QStringLiteral("nonce"), request.nonce},
                            {QStringLiteral("scanned_at"), toIsoUtc(request.scannedAt)}};
    if (mismatch)
        auditDetail.insert(QStringLiteral("reason"), QStringLiteral("record_mismatch"));
    if (request.staff
        && !StaffRepository::appendAudit(db, *request.staff,
                                         {QStringLiteral("ticket.checkin"),
                                          ticketId.isEmpty() ? QStringLiteral("checkin:") + request.nonce : QStringLiteral("ticket:") + ticketId, QString(),
                                          auditDetail}))
        return outcome;
    QSqlQuery insert(db);
    prepareQuery(insert, QStringLiteral(
        "INSERT INTO checkins (nonce, request_hash, ticket_id, scanned_at, device, result, first_scanned_at, response) "
        "VALUES (?, ?, ?::uuid, ?::timestamptz, ?, ?, ?::timestamptz, ?::jsonb)"));
    insert.addBindValue(request.nonce);
    insert.addBindValue(QString::fromLatin1(fingerprint));
    insert.addBindValue(ticketId.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(ticketId));
    insert.addBindValue(toIsoUtc(request.scannedAt));
    insert.addBindValue(request.device);
    insert.addBindValue(result);
    insert.addBindValue(firstScannedAt.isValid() ? QVariant(toIsoUtc(firstScannedAt)) : QVariant(QMetaType::fromType<QString>()));
    insert.addBindValue(jsonText(body));
    if (!run(insert, "store check-in") || !transaction.commit())
        return outcome;
    outcome.status = CheckinOutcome::Status::Answered;
    outcome.body = body;
    return outcome;
}

} // namespace marquee::store
