// SPDX-License-Identifier: AGPL-3.0-or-later
#include "corelogging.h"

Q_LOGGING_CATEGORY(lcOrders, "marquee.orders")
