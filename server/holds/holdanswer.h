// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "core/errorcatalogue.h"
#include "store/holdrepository.h"

#include <QByteArray>
#include <optional>

namespace marquee {

/** @brief The wire of a hold decision: HTTP status and the exact body bytes. */
struct HoldAnswer {
    int status = 200;
    QByteArray body;
};

/** @brief The catalogue's error for a refusal; std::nullopt for a grant. */
std::optional<ErrorCode> holdError(store::HoldVerdict verdict);

/**
 * @brief The one place a hold decision becomes HTTP. Status, code and message come from the catalogue
 * (core/errorcatalogue). A decision of PostgreSQL is written as PostgreSQL writes jsonb (jsonbText), a refusal
 * from memory compactly: both forms are pinned byte for byte by tests/server/tst_holdwire.cpp, and stored decisions
 * replay in the form they were first given in.
 */
HoldAnswer holdAnswer(const store::HoldDecision &decision);

} // namespace marquee
