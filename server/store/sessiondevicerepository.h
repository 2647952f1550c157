// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <QString>

namespace marquee::store {

/**
 * @brief Which enrolled device (till or desk) a staff session was opened on — `sessions.device_id`, migration 022 —
 * so the audit log can say from which device each staff action came (StaffRepository::appendAudit reads it).
 */
class SessionDeviceRepository
{
public:
    explicit SessionDeviceRepository(const Database &database);

    /** @brief Bind the open session whose bearer token is @p token to @p deviceId; false on error or no such session. */
    bool bind(const QString &token, qint64 deviceId);
    /** @brief End the session of @p token at once (a sign-in that could not be bound is not handed out). */
    bool discard(const QString &token);

private:
    const Database &m_database;
};

} // namespace marquee::store
