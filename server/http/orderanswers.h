// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "http/httpresponse.h"
#include "orders/orderoutcome.h"

namespace marquee::http {

/**
 * @brief The one place an order path's outcome (OrderService) becomes HTTP: each domain value with its status and
 * body, each Refusal through the catalogue (core/errorcatalogue) with its error headers. The bytes are pinned by
 * tests/server/tst_orderwire.cpp.
 */
HttpResponse orderAnswer(const payments::CreatedOrder &created);       ///< 201: the order waiting for its payment
HttpResponse orderAnswer(const payments::SettledOrder &settled); ///< 200: the booking, as the first confirm answered it
HttpResponse orderAnswer(const store::OrderRecord &order);             ///< 200: the order as GET shows it
HttpResponse orderAnswer(const payments::WebhookReceipt &receipt);     ///< 200: processed, duplicate or ignored
HttpResponse orderAnswer(const payments::Cancellation &cancellation);  ///< 200: the cancelled booking and its refund
HttpResponse orderAnswer(const payments::ReleasedHold &released);      ///< 200: the hold released, its order ended
HttpResponse orderAnswer(const payments::BookingView &booking);        ///< 200: the booking
HttpResponse orderAnswer(const Refusal &refusal);                     ///< the catalogue's status, body and headers

/** @brief @p outcome's value or refusal as HTTP. */
template <typename T>
HttpResponse orderAnswer(const payments::OrderOutcome<T> &outcome)
{
    return std::visit([](const auto &value) { return orderAnswer(value); }, outcome);
}

} // namespace marquee::http
