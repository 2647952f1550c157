// SPDX-License-Identifier: AGPL-3.0-or-later
#include "synclog.h"

Q_LOGGING_CATEGORY(lcSync, "marquee.sync")
