// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace marquee::payments {

/** @brief Settings of orders and payments (from ServerConfig). */
struct PaymentSettings {
    QString providerUrl;        ///< marquee-paysim base URL; empty: card payments are refused (503)
    QByteArray webhookSecret;   ///< empty: every webhook is refused (401)
    int providerTimeoutMs = 10000;
    int paymentWindowSeconds = 900;
    int graceSeconds = 120;
    int cancelCutoffSeconds = 2 * 3600;
    qint64 cancelFeeMinor = 0;
    int reconcileMinAgeSeconds = 30;
};

} // namespace marquee::payments
