// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace marquee::store {

/** @brief The answer stored under an Idempotency-Key (table idempotency_keys). */
struct StoredReply {
    QByteArray requestHash; ///< the digest of the request that first used the key
    int status = 0;
    QByteArray body;
};

/** @brief Reads answers kept under Idempotency-Keys; the writes that store them do so in their own transactions. */
class IdempotencyRepository
{
public:
    explicit IdempotencyRepository(const Database &database);

    /**
     * @brief The live (unexpired) answer stored for @p owner's @p key; std::nullopt when there is none or on a
     * database error (then @p ok is false).
     */
    std::optional<StoredReply> storedReply(const QString &owner, const QString &key, bool *ok);

private:
    const Database &m_database;
};

} // namespace marquee::store
