// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>

namespace marquee::protection {

/**
 * @brief A new request id: 16 lowercase hex digits from this thread's own generator (no lock on the request path).
 * Every answer carries one in X-Request-Id, those refused before parsing (framing, connection limits) included.
 */
QByteArray newRequestId();

} // namespace marquee::protection
