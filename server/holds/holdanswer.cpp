// SPDX-License-Identifier: AGPL-3.0-or-later
#include "holds/holdanswer.h"

#include <QJsonArray>

namespace marquee {

using store::HoldVerdict;

std::optional<ErrorCode> holdError(HoldVerdict verdict)
{
    switch (verdict) {
    case HoldVerdict::SeatsTaken:
        return ErrorCode::SeatsUnavailable;
    case HoldVerdict::UnknownSeat:
        return ErrorCode::UnknownSeat;
    case HoldVerdict::KeyReused:
        return ErrorCode::IdempotencyKeyReused;
    case HoldVerdict::InFlight:
        return ErrorCode::RequestInProgress;
    case HoldVerdict::ShowNotFound:
        return ErrorCode::ShowNotFound;
    case HoldVerdict::SalesClosed:
        return ErrorCode::SalesClosed;
    case HoldVerdict::SalesNotOpen:
        return ErrorCode::SalesNotOpen;
    case HoldVerdict::HoldLimitReached:
        return ErrorCode::HoldLimitReached;
    case HoldVerdict::Granted:
        break;
    }
    return std::nullopt;
}

HoldAnswer holdAnswer(const store::HoldDecision &decision)
{
    if (!decision.ok) {
        const ApiError error = apiError(ErrorCode::HoldStoreUnavailable);
        return {error.httpStatus, error.toBody()};
    }
    switch (decision.verdict) {
    case HoldVerdict::Granted:
        return {200,
            jsonbText({{QStringLiteral("hold_id"), decision.holdId}, {QStringLiteral("show_id"), decision.showId},
                {QStringLiteral("seat_ids"), QJsonArray::fromStringList(decision.seatIds)},
                {QStringLiteral("expires_at"), decision.expiresAt}})};
    default:
        break;
    }
    QJsonObject extra;
    QStringList arguments;
    if (decision.verdict == HoldVerdict::HoldLimitReached) {
        extra.insert(QStringLiteral("seats_held"), decision.seatsHeld);
        extra.insert(QStringLiteral("seat_limit"), decision.seatLimit);
        arguments << QString::number(decision.seatsHeld) << QString::number(decision.seatLimit);
    }
    if (decision.verdict == HoldVerdict::SeatsTaken)
        extra.insert(QStringLiteral("held_seats"), QJsonArray::fromStringList(decision.seatIds));
    else if (decision.verdict == HoldVerdict::UnknownSeat)
        extra.insert(QStringLiteral("unknown_seats"), QJsonArray::fromStringList(decision.seatIds));
    const ApiError error = apiError(*holdError(decision.verdict), arguments, extra);
    return {error.httpStatus, decision.inProcess ? error.toBody() : jsonbText(error.toJson())};
}

} // namespace marquee
