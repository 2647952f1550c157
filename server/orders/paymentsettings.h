// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace marquee::payments {

/** @brief Settings of orders and payments (from ServerConfig). */
struct PaymentSettings {
    QString providerUrl;        ///< marquee-paysim base URL; empty: card payments are refused (CardProviderNotConfigured)
    QByteArray webhookSecret;   ///< empty: every webhook is refused (InvalidSignature)
    int providerTimeoutMs = 10000;
    int paymentWindowSeconds = 900;
    int graceSeconds = 120;
    int cancelCutoffSeconds = 2 * 3600; ///< cashiers may cancel until this long before the start
    qint64 cancelFeeMinor = 0;          ///< fixed cancellation fee, minor units of the booking's currency
    int cancelFeePercent = 0;           ///< plus this percentage of the amount paid (rounded down)
    int reconcileMinAgeSeconds = 30;
};

} // namespace marquee::payments
