// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace marquee {

/**
 * @brief A hold request, checked: POST /api/v1/shows/{show_id}/hold, or a sync batch's "hold" action. Read from
 * the body by http/requestparsers (parseHoldRequest), decided by HoldService.
 */
struct HoldRequest {
    qint64 showId = 0;
    QString idempotencyKey; ///< empty: nothing is deduplicated
    QStringList seatIds;
    QByteArray fingerprint; ///< what the request means (show and set of seats), for a reused Idempotency-Key
    QByteArray admissionToken;
};

} // namespace marquee
