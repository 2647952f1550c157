// SPDX-License-Identifier: AGPL-3.0-or-later
// POST /webhooks/payment: the X-Signature check and the event it authenticates (orders/paymentwebhook).
// Input: the X-Signature header value, a newline, then the raw body.
#include "core/tokenhash.h"
#include "fuzzcheck.h"
#include "orders/paymentwebhook.h"

using namespace marquee;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QByteArray secret = "whsec-fuzz";
    const QByteArray input = marquee::fuzz::input(data, size);
    const qsizetype newline = input.indexOf('\n');
    const QByteArray header = newline < 0 ? QByteArray() : input.left(newline);
    const QByteArray body = newline < 0 ? input : input.mid(newline + 1);

    const QByteArray expected = "sha256=" + hmacSha256Hex(secret, body);
    // Exactly one header value (white space around it aside) authenticates a body, and never without a secret.
    FUZZ_CHECK(payments::webhookSignatureValid(secret, body, header) == (header.trimmed() == expected));
    FUZZ_CHECK(payments::webhookSignatureValid(secret, body, expected));
    FUZZ_CHECK(payments::webhookSignatureValid(secret, body, " " + expected + "\r"));
    FUZZ_CHECK(!payments::webhookSignatureValid({}, body, header));
    FUZZ_CHECK(!payments::webhookSignatureValid(secret, body + 'x', expected));

    const auto event = payments::parsePaymentEvent(body);
    if (const auto *error = std::get_if<ApiError>(&event)) {
        marquee::fuzz::checkRefusal(*error);
        FUZZ_CHECK(error->code == QLatin1String("invalid_event"));
        return 0;
    }
    const payments::PaymentEvent &parsed = std::get<payments::PaymentEvent>(event);
    FUZZ_CHECK(!parsed.eventId.isEmpty() && parsed.eventId.size() <= 200);
    FUZZ_CHECK(!parsed.intentId.isEmpty() && parsed.intentId.size() <= 200);
    FUZZ_CHECK(parsed.type == QLatin1String("payment_intent.succeeded") || parsed.type == QLatin1String("payment_intent.failed")
               || parsed.type == QLatin1String("charge.refunded"));
    return 0;
}
