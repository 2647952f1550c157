// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

// What every fuzz target shares: the input as Qt types, and FUZZ_CHECK, which stops the run with the broken
// property so that libFuzzer keeps the input as a crash artifact (an invariant that fails is a bug like a crash).

#include "core/apierror.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition)                                                                                                   \
    do {                                                                                                                        \
        if (!(condition)) {                                                                                                     \
            std::fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #condition);                                 \
            std::abort();                                                                                                       \
        }                                                                                                                       \
    } while (false)

namespace marquee::fuzz {

inline QByteArray input(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

/**
 * @brief The target of a request body (routebody.cpp holds its LLVMFuzzerTestOneInput): called with the body as a
 * route's parser gets it. ApiServer refuses unclean text (invalid UTF-8, NUL, control characters, lone surrogates)
 * and Router::addJson anything but a JSON object before any parser runs, so neither reaches it.
 */
void fuzzRouteBody(const QJsonObject &body);

/** @brief A refusal is a client error with a code and a message, and its body is the JSON `{error, message}`. */
inline void checkRefusal(const ApiError &error)
{
    FUZZ_CHECK(error.httpStatus >= 400 && error.httpStatus < 500);
    FUZZ_CHECK(!error.code.isEmpty());
    FUZZ_CHECK(!error.message.isEmpty());
    const QJsonDocument body = QJsonDocument::fromJson(error.toBody());
    FUZZ_CHECK(body.isObject());
    FUZZ_CHECK(body.object().value(QStringLiteral("error")).toString() == error.code);
    FUZZ_CHECK(body.object().value(QStringLiteral("message")).toString() == error.message);
}

} // namespace marquee::fuzz
