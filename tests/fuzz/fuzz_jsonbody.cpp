// SPDX-License-Identifier: AGPL-3.0-or-later
// core/jsonbody and core/textcheck: a request body into a JSON object, the typed field readers every route uses
// on it, and the raw-bytes text check (isCleanJsonText) that refuses unclean text before any route runs.
#include "core/jsonbody.h"
#include "core/textcheck.h"
#include "fuzzcheck.h"

#include <QJsonArray>
#include <QSet>
#include <cmath>

using namespace marquee;
using marquee::fuzz::checkRefusal;

namespace {
// What isCleanJsonText let through, the parser must not turn into unclean text: every key and every string.
void checkClean(const QJsonValue &value)
{
    if (value.isString()) {
        FUZZ_CHECK(isCleanText(value.toString(), true));
    } else if (value.isArray()) {
        for (const QJsonValue &item : value.toArray())
            checkClean(item);
    } else if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            FUZZ_CHECK(isCleanText(it.key(), true));
            checkClean(it.value());
        }
    }
}

void readEveryField(const QJsonObject &object)
{
    QStringList fields = object.keys();
    fields << QStringLiteral("seat_ids") << QStringLiteral("missing");
    for (const QString &field : std::as_const(fields)) {
        for (const int limit : {1, 32, 255}) {
            const auto text = requiredString(object, field, limit);
            if (const auto *error = std::get_if<ApiError>(&text))
                checkRefusal(*error);
            else
                FUZZ_CHECK(!std::get<QString>(text).isEmpty() && std::get<QString>(text).size() <= limit
                           && object.value(field).toString() == std::get<QString>(text));

            const auto optional = optionalString(object, field, limit);
            if (const auto *error = std::get_if<ApiError>(&optional))
                checkRefusal(*error);
            else
                FUZZ_CHECK(std::get<QString>(optional).size() <= limit);

            const auto list = requiredStringArray(object, field, limit);
            if (const auto *error = std::get_if<ApiError>(&list)) {
                checkRefusal(*error);
            } else {
                const QStringList &items = std::get<QStringList>(list);
                FUZZ_CHECK(!items.isEmpty() && items.size() == object.value(field).toArray().size());
                FUZZ_CHECK(QSet<QString>(items.begin(), items.end()).size() == items.size());
                for (const QString &item : items)
                    FUZZ_CHECK(!item.isEmpty() && item.size() <= limit);
            }
        }
        const auto number = requiredInteger(object, field);
        if (const auto *error = std::get_if<ApiError>(&number)) {
            checkRefusal(*error);
        } else {
            // Exactly the JSON number, which a double holds without rounding.
            const qint64 value = std::get<qint64>(number);
            FUZZ_CHECK(object.value(field).isDouble() && double(value) == object.value(field).toDouble());
            FUZZ_CHECK(std::llabs(value) <= (qint64(1) << 53));
        }
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body = marquee::fuzz::input(data, size);
    const bool clean = isCleanJsonText(body);
    const auto parsed = parseJsonObject(body);
    if (const auto *error = std::get_if<ApiError>(&parsed)) {
        checkRefusal(*error);
        return 0;
    }
    const QJsonObject &object = std::get<QJsonObject>(parsed);
    if (clean)
        checkClean(object);
    else
        return 0; // the server refuses it as invalid_text before any reader sees it
    readEveryField(object);
    // The readers look one level down too (a batch's payload, an order's nested fields).
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.value().isObject())
            readEveryField(it.value().toObject());
    }
    return 0;
}
