// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/isotime.h"
#include "core/jsonbody.h"
#include "http/routes.h"
#include "runtime/servercontext.h"

#include <QUrlQuery>

namespace marquee::http {

using Method = QHttpServerRequest::Method;

namespace {
HttpResponse storeFailure()
{
    return HttpResponse::error(ApiError::unavailable(QStringLiteral("The ticket database is not answering; try again shortly.")));
}
} // namespace

std::optional<ApiError> parseCursorQuery(const QHttpServerRequest &request, qint64 *after, int *limit, int defaultLimit, int maxLimit)
{
    const QUrlQuery query = request.query();
    *after = 0;
    *limit = defaultLimit;
    const QString afterText = query.queryItemValue(QStringLiteral("after"));
    if (!afterText.isEmpty()) {
        bool ok = false;
        *after = afterText.toLongLong(&ok);
        if (!ok || *after < 0)
            return ApiError::badRequest(QStringLiteral("invalid_cursor"), QStringLiteral("after must be a cursor returned as next_cursor (an integer >= 0)."));
    }
    const QString limitText = query.queryItemValue(QStringLiteral("limit"));
    if (!limitText.isEmpty()) {
        bool ok = false;
        *limit = limitText.toInt(&ok);
        if (!ok || *limit < 1 || *limit > maxLimit)
            return ApiError::badRequest(QStringLiteral("invalid_limit"), QStringLiteral("limit must be an integer from 1 to %1.").arg(maxLimit));
    }
    return std::nullopt;
}

void registerTicketRoutes(Router &router, ServerContext &context)
{
    // A door verifies offline with the keys of its own venue only, so a device is given those and no other: a ticket
    // of another venue (genuinely signed there) must not open this venue's doors. A device or a session at a
    // device gets its venue's keys and the venue in Marquee-Venue-Id (what its offline verifier admits); a
    // session at no device (the manager's desk) every venue's, without the header; a device given no venue yet
    // among several, none. Nobody without a token: the keys are public, but which venues exist, and when
    // their keys turn over, is nobody else's business (docs/security.md, "Ticket keys by venue").
    router.add(Method::Get, QStringLiteral("/api/v1/keys"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const store::Principal &caller = request.caller();
        const bool everyVenue = caller.kind == store::Principal::Kind::Session && caller.venueId == 0;
        const auto keys = context.tickets.publicKeys();
        if (!keys)
            return storeFailure();
        QJsonArray array;
        for (const store::PublicSigningKey &key : *keys)
            if (everyVenue || key.venueId == caller.venueId)
                array.append(QJsonObject{{QStringLiteral("key_id"), key.keyId},
                                     {QStringLiteral("alg"), QStringLiteral("Ed25519")},
                                     {QStringLiteral("public_key"), QString::fromLatin1(key.publicKey.toBase64())},
                                     {QStringLiteral("venue_id"), key.venueId},
                                     {QStringLiteral("not_after"), toIsoUtc(key.notAfter)},
                                     {QStringLiteral("signing"), !key.retired}});
        HttpResponse response = HttpResponse::json(200, array);
        if (caller.venueId > 0)
            response.withHeader(QByteArrayLiteral("Marquee-Venue-Id"), QByteArray::number(caller.venueId));
        return response;
    });

    // The delegations of the caller's venue that can still admit somebody, active and revoked: a door caches them
    // next to the keys (GET /api/v1/keys stays the array it always was) to verify device-signed tickets offline.
    // The same venue rule as the keys.
    router.add(Method::Get, QStringLiteral("/api/v1/delegations"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        const store::Principal &caller = request.caller();
        const bool everyVenue = caller.kind == store::Principal::Kind::Session && caller.venueId == 0;
        const auto delegations = context.tickets.delegations().published(caller.venueId, everyVenue);
        if (!delegations)
            return storeFailure();
        QJsonArray array;
        for (const store::StoredDelegation &delegation : *delegations)
            array.append(store::DelegationRepository::feedEntry(delegation));
        HttpResponse response = HttpResponse::json(200, QJsonObject{{QStringLiteral("delegations"), array}});
        if (caller.venueId > 0)
            response.withHeader(QByteArrayLiteral("Marquee-Venue-Id"), QByteArray::number(caller.venueId));
        return response;
    });

    router.add(Method::Get, QStringLiteral("/api/v1/revocations"), Access::roles_(kAllRoles), [&context](RequestContext &request) {
        qint64 after = 0;
        int limit = 0;
        if (const auto error = parseCursorQuery(request.request, &after, &limit, 500, 5000))
            return HttpResponse::error(*error);
        const auto list = context.tickets.revocations(after, limit);
        if (!list)
            return storeFailure();
        QJsonArray array;
        qint64 next = after;
        for (const store::Revocation &revocation : *list) {
            array.append(QJsonObject{{QStringLiteral("cursor"), revocation.cursor},
                                     {QStringLiteral("ticket_id"), revocation.ticketId},
                                     {QStringLiteral("revoked_at"), toIsoUtc(revocation.revokedAt)},
                                     {QStringLiteral("reason"), revocation.reason}});
            next = revocation.cursor;
        }
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("revocations"), array}, {QStringLiteral("next_cursor"), next}});
    });

    // Reprint at the box office: tills and staff, never kiosks (the access rule answers 403 before the handler).
    constexpr RoleMask mayReissue = roleBit(Role::Till) | kStaffRoles;
    router.addJson(Method::Post, QStringLiteral("/api/v1/tickets/{ticket_id}/reissue"), Access::roles_(mayReissue), [&context](RequestContext &request, const QJsonObject &body) {
        const auto reason = requiredString(body, QStringLiteral("reason"), 500);
        if (isError(reason))
            return HttpResponse::error(std::get<ApiError>(reason));
        if (std::get<QString>(reason).trimmed().isEmpty())
            return HttpResponse::error(ApiError::badRequest(QStringLiteral("missing_field"), QStringLiteral("Say why the ticket is reprinted: 'reason' must not be blank.")));
        const QString ticketId = request.params.value(QStringLiteral("ticket_id"));
        const store::ReissueOutcome outcome = context.tickets.reissue(request.caller(), ticketId, std::get<QString>(reason).trimmed());
        switch (outcome.kind) {
        case store::ReissueOutcome::Kind::NotFound:
            return HttpResponse::error(ApiError::notFound(QStringLiteral("ticket_not_found"), QStringLiteral("There is no ticket with this id.")));
        case store::ReissueOutcome::Kind::Revoked:
            return HttpResponse::error(ApiError::conflict(QStringLiteral("ticket_revoked"),
                                                          QStringLiteral("This ticket is revoked (booking cancelled or ticket replaced); reissue its current ticket instead.")));
        case store::ReissueOutcome::Kind::AlreadyCheckedIn:
            return HttpResponse::error(ApiError::conflict(QStringLiteral("ticket_already_checked_in"),
                                                          QStringLiteral("This ticket has been admitted; a new code would admit the seat twice.")));
        case store::ReissueOutcome::Kind::Error:
            return storeFailure();
        case store::ReissueOutcome::Kind::Reissued:
        case store::ReissueOutcome::Kind::Replayed:
            break;
        }
        return HttpResponse::json(200, QJsonObject{{QStringLiteral("ticket_id"), outcome.ticket.ticketId},
                                                   {QStringLiteral("seat_id"), outcome.ticket.seatId},
                                                   {QStringLiteral("qr"), outcome.ticket.qr},
                                                   {QStringLiteral("booking_id"), outcome.bookingId},
                                                   {QStringLiteral("show_id"), outcome.showId},
                                                   {QStringLiteral("replaces_ticket_id"), ticketId},
                                                   {QStringLiteral("replayed"), outcome.kind == store::ReissueOutcome::Kind::Replayed}});
    });
}

} // namespace marquee::http
