// SPDX-License-Identifier: AGPL-3.0-or-later
#include "applogging.h"

Q_LOGGING_CATEGORY(lcApi, "marquee.app.api")
Q_LOGGING_CATEGORY(lcKiosk, "marquee.app.kiosk")
Q_LOGGING_CATEGORY(lcTill, "marquee.app.till")
Q_LOGGING_CATEGORY(lcDesk, "marquee.app.desk")
Q_LOGGING_CATEGORY(lcStaff, "marquee.app.staff")
Q_LOGGING_CATEGORY(lcSeatMap, "marquee.app.seatmap")
Q_LOGGING_CATEGORY(lcLive, "marquee.app.live")
Q_LOGGING_CATEGORY(lcPairing, "marquee.app.pairing")
