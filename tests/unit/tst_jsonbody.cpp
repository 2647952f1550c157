// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonbody.h"

#include <gtest/gtest.h>

using namespace marquee;

namespace {
QJsonObject object(const char *json)
{
    return std::get<QJsonObject>(parseJsonObject(json));
}
QString errorCode(const auto &result)
{
    return isError(result) ? std::get<ApiError>(result).code : QString();
}
} // namespace

TEST(JsonBody, RefusesMalformedAndNonObjects)
{
    EXPECT_EQ(errorCode(parseJsonObject("")), QStringLiteral("malformed_json"));
    EXPECT_EQ(errorCode(parseJsonObject("{\"seat_ids\": [")), QStringLiteral("malformed_json"));
    EXPECT_EQ(errorCode(parseJsonObject("[1,2]")), QStringLiteral("invalid_body"));
    EXPECT_EQ(std::get<ApiError>(parseJsonObject("nope")).httpStatus, 400);
    EXPECT_FALSE(isError(parseJsonObject("{}")));
}

TEST(JsonBody, StringArrayValidation)
{
    const QString field = QStringLiteral("seat_ids");
    EXPECT_EQ(errorCode(requiredStringArray(object("{}"), field)), QStringLiteral("missing_field"));
    EXPECT_EQ(errorCode(requiredStringArray(object("{\"seat_ids\": \"A1\"}"), field)), QStringLiteral("invalid_type"));
    EXPECT_EQ(errorCode(requiredStringArray(object("{\"seat_ids\": []}"), field)), QStringLiteral("empty_seat_ids"));
    EXPECT_EQ(errorCode(requiredStringArray(object("{\"seat_ids\": [1]}"), field)), QStringLiteral("invalid_type"));
    EXPECT_EQ(errorCode(requiredStringArray(object("{\"seat_ids\": [\"\"]}"), field)), QStringLiteral("invalid_type"));
    EXPECT_EQ(errorCode(requiredStringArray(object("{\"seat_ids\": [\"A1\", \"A1\"]}"), field)), QStringLiteral("duplicate_seat_ids"));
    const auto ok = requiredStringArray(object("{\"seat_ids\": [\"B2\", \"A1\"]}"), field);
    ASSERT_FALSE(isError(ok));
    EXPECT_EQ(std::get<QStringList>(ok), (QStringList{QStringLiteral("B2"), QStringLiteral("A1")}));
}

TEST(JsonBody, ScalarsValidation)
{
    EXPECT_EQ(errorCode(requiredString(object("{\"name\": 5}"), QStringLiteral("name"))), QStringLiteral("invalid_type"));
    EXPECT_EQ(errorCode(requiredString(object("{\"name\": \"\"}"), QStringLiteral("name"))), QStringLiteral("missing_field"));
    EXPECT_EQ(std::get<QString>(requiredString(object("{\"name\": \"Ana\"}"), QStringLiteral("name"))), QStringLiteral("Ana"));
    EXPECT_EQ(std::get<QString>(optionalString(object("{}"), QStringLiteral("reason"))), QString());
    EXPECT_EQ(errorCode(optionalString(object("{\"reason\": []}"), QStringLiteral("reason"))), QStringLiteral("invalid_type"));
    EXPECT_EQ(errorCode(requiredInteger(object("{\"n\": 1.5}"), QStringLiteral("n"))), QStringLiteral("invalid_type"));
    EXPECT_EQ(errorCode(requiredInteger(object("{\"n\": \"3\"}"), QStringLiteral("n"))), QStringLiteral("invalid_type"));
    EXPECT_EQ(std::get<qint64>(requiredInteger(object("{\"n\": 4200}"), QStringLiteral("n"))), 4200);
}
