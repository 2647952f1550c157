// SPDX-License-Identifier: AGPL-3.0-or-later
#include "core/jsonwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <gtest/gtest.h>

using namespace marquee;

namespace {
QByteArray qtCompact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}
} // namespace

TEST(JsonWriter, WritesTheBytesQtWritesForTheSameObject)
{
    // Every character class an escaper can get wrong: quotes, backslash, each control character, DEL, Latin-1,
    // a character outside the BMP (a surrogate pair), and a lone surrogate.
    QString awkward = QStringLiteral("say \"hi\" \\ back/slash é ü € 🎬 ");
    for (char16_t c = 0; c < 0x20; ++c)
        awkward.append(QChar(c));
    awkward.append(QChar(0x7f)).append(QChar(0xd800)).append(QStringLiteral(" x")).append(QChar(0xdc00)).append(QStringLiteral(" end")).append(QChar(0xdbff));

    const QJsonObject expected{{QStringLiteral("a_number"), qint64(-1234567890123)},
                               {QStringLiteral("b_zero"), 0},
                               {QStringLiteral("c_true"), true},
                               {QStringLiteral("d_false"), false},
                               {QStringLiteral("e_null"), QJsonValue()},
                               {QStringLiteral("f_text"), awkward},
                               {QStringLiteral("g_empty"), QString()},
                               {QStringLiteral("h_rows"), QJsonArray{QJsonObject{{QStringLiteral("x"), 1}}, QJsonObject{}}}};

    QByteArray rows;
    JsonWriter(&rows).beginArray().beginObject().member("x", 1).endObject().beginObject().endObject().endArray();
    QByteArray written;
    JsonWriter(&written)
        .beginObject()
        .member("a_number", qint64(-1234567890123))
        .member("b_zero", 0)
        .member("c_true", true)
        .member("d_false", false)
        .nullMember("e_null")
        .member("f_text", awkward)
        .member("g_empty", QString())
        .key("h_rows")
        .raw(rows)
        .endObject();
    EXPECT_EQ(written.toStdString(), qtCompact(expected).toStdString());
    EXPECT_FALSE(QJsonDocument::fromJson(written).isNull());
}

TEST(JsonWriter, ArraysOfValuesAndNestedEmptyContainers)
{
    QByteArray written;
    JsonWriter(&written).beginArray().value(1).value(QStringLiteral("two")).null().beginArray().endArray().beginObject().endObject().value(false).endArray();
    const QJsonArray expected{1, QStringLiteral("two"), QJsonValue(), QJsonArray(), QJsonObject(), false};
    EXPECT_EQ(written.toStdString(), QJsonDocument(expected).toJson(QJsonDocument::Compact).toStdString());
}

TEST(JsonWriter, RandomStringsOfAnyUtf16UnitsAreWrittenAsQtWritesThem)
{
    QRandomGenerator random(20261201);
    for (int round = 0; round < 5000; ++round) {
        QString text;
        const int length = int(random.bounded(40));
        for (int i = 0; i < length; ++i) {
            // Mostly ASCII (with its escapes), some of every other range, surrogates paired or not.
            const quint32 pick = random.bounded(10);
            const char16_t unit = pick < 5 ? char16_t(random.bounded(0x80)) : pick < 7 ? char16_t(0x80 + random.bounded(0x780))
                                : pick < 9 ? char16_t(0x800 + random.bounded(0xf800)) : char16_t(0xd800 + random.bounded(0x800));
            text.append(QChar(unit));
        }
        QByteArray written;
        JsonWriter(&written).beginObject().member("t", text).endObject();
        ASSERT_EQ(written.toStdString(), qtCompact(QJsonObject{{QStringLiteral("t"), text}}).toStdString()) << "round " << round;
    }
}
