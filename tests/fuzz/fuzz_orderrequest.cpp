// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /api/v1/orders: the body into an OrderRequest (http/requestparsers), for each role that may order.
#include "core/customercontact.h"
#include "fuzzcheck.h"
#include "http/requestparsers.h"

using namespace marquee;
using fuzz::checkRefusal;

void marquee::fuzz::fuzzRouteBody(const QJsonObject &body)
{
    const QString method = body.value(QStringLiteral("payment_method")).toString();
    for (const Role role : {Role::Kiosk, Role::Till, Role::Cashier, Role::Manager}) {
        const auto parsed = http::parseOrderRequest(body, role);
        if (const auto *error = std::get_if<ApiError>(&parsed)) {
            checkRefusal(*error);
            continue;
        }
        const http::OrderRequest &order = std::get<http::OrderRequest>(parsed);
        FUZZ_CHECK(!order.holdId.isEmpty() && order.holdId.size() <= 64);
        FUZZ_CHECK(order.cash == (method == QLatin1String("cash")));
        // Only a split has a cash part, and a kiosk never pays one.
        FUZZ_CHECK((order.tender.splitCashMinor > 0) == (method == QLatin1String("split")));
        FUZZ_CHECK(!(role == Role::Kiosk && order.tender.splitCashMinor > 0));
        FUZZ_CHECK(order.tender.splitCashMinor >= 0 && order.tender.tenderedMinor.value_or(0) >= 0);
        // The contact is stored normalised: normalising it again changes nothing.
        if (!order.contact.email.isEmpty())
            FUZZ_CHECK(normalizedCustomerEmail(order.contact.email) == order.contact.email);
        if (!order.contact.phone.isEmpty())
            FUZZ_CHECK(normalizedCustomerPhone(order.contact.phone) == order.contact.phone);
    }
}
