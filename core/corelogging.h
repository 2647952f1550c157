// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// The core library's logging categories, declared once: include this header instead of declaring one by hand.

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcOrders) ///< marquee.orders: order state transitions refused as illegal
