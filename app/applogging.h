// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// The app's logging categories, declared once: include this header instead of declaring a category by hand.
// Enable one at run time with QT_LOGGING_RULES, e.g. "marquee.app.kiosk.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcApi)     ///< marquee.app.api: the kiosk's calls to the server
Q_DECLARE_LOGGING_CATEGORY(lcKiosk)   ///< marquee.app.kiosk: the kiosk flow, terminal and printer
Q_DECLARE_LOGGING_CATEGORY(lcTill)    ///< marquee.app.till: the box-office till
Q_DECLARE_LOGGING_CATEGORY(lcDesk)    ///< marquee.app.desk: the manager desk
Q_DECLARE_LOGGING_CATEGORY(lcStaff)   ///< marquee.app.staff: staff sign-in and sessions
Q_DECLARE_LOGGING_CATEGORY(lcSeatMap) ///< marquee.app.seatmap: seat map loading
Q_DECLARE_LOGGING_CATEGORY(lcLive)    ///< marquee.app.live: the live seat feed's WebSocket
Q_DECLARE_LOGGING_CATEGORY(lcPairing) ///< marquee.app.pairing: pairing the device with a one-time code (never the token)
