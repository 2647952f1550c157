// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonbody.h"
#include "core/textcheck.h"

#include <QJsonArray>
#include <gtest/gtest.h>

using namespace marquee;

// Found by fuzz_jsonbody: the short escapes \b and \f decode to U+0008 and U+000C, and Qt's parser reads a backslash
// before a raw control byte (NUL, SOH, DEL...) as that byte: control characters the raw-byte check let through while
// refusing the same characters written as \u0008, \u000c or \u0000.
TEST(TextCheck, EscapedControlCharactersAreUnclean)
{
    for (const QByteArray &body : {QByteArrayLiteral(R"({"":"\b"})"), QByteArrayLiteral(R"({"seat_ids":["A\f1"]})"),
                                   QByteArrayLiteral(R"({"a\b":1})"), QByteArrayLiteral(R"({"seat_ids":["\u0008"]})"),
                                   QByteArray("{\"e\":\"\\\0{\"}", 11), QByteArray("{\"e\":\"A\\\x01\"}"),
                                   QByteArray("{\"e\":\"A\\\x7f\"}")}) {
        EXPECT_FALSE(isCleanJsonText(body)) << body.constData();
        // What the parser makes of it is indeed unclean text.
        const auto parsed = parseJsonObject(body);
        ASSERT_FALSE(isError(parsed)) << body.constData();
        const QJsonObject object = std::get<QJsonObject>(parsed);
        const QString key = object.keys().constFirst();
        const QJsonValue value = object.value(key);
        const QString text = value.isArray() ? value.toArray().first().toString() : value.isString() ? value.toString() : key;
        EXPECT_FALSE(isCleanText(text, true)) << body.constData();
    }
}

TEST(TextCheck, AllowedEscapesStayClean)
{
    for (const QByteArray &body : {QByteArrayLiteral(R"({"note":"a\tb\nc\rd\"e\\f\/g"})"), QByteArrayLiteral(R"({"seat_ids":["\\b"]})"),
                                   QByteArrayLiteral(R"({"x":"\ud83d\ude00 \u00e9"})"), QByteArrayLiteral(R"({"b":"f"})")})
        EXPECT_TRUE(isCleanJsonText(body)) << body.constData();
    // An escaped backslash followed by b is the two characters \ and b, not a backspace.
    EXPECT_FALSE(isCleanJsonText(QByteArrayLiteral(R"({"x":"\\\b"})")));
}
