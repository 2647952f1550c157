// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringView>

namespace marquee {

/**
 * @brief Writes compact JSON straight into a buffer, byte for byte as QJsonDocument::toJson(Compact) writes the
 * same values, for the few answers that carry thousands of rows (the refunds report): building a QJsonObject per
 * row and serialising the document cost more than the query that found the rows.
 *
 * The caller writes each object's keys in QJsonObject's order (sorted by UTF-16 code unit) to get the same bytes;
 * nothing checks that, nor that keys are unique. Strings are escaped as Qt escapes them (tests compare the two).
 */
class JsonWriter
{
public:
    explicit JsonWriter(QByteArray *out)
        : m_out(*out)
    {
    }

    JsonWriter &beginObject() { return open('{'); }
    JsonWriter &endObject() { return close('}'); }
    JsonWriter &beginArray() { return open('['); }
    JsonWriter &endArray() { return close(']'); }

    /** @brief The next member's key (inside an object): its value follows. */
    JsonWriter &key(QByteArrayView name);

    JsonWriter &value(qint64 number);
    JsonWriter &value(int number) { return value(qint64(number)); }
    JsonWriter &value(bool flag);
    JsonWriter &value(QStringView text);
    JsonWriter &value(const QString &text) { return value(QStringView(text)); }
    JsonWriter &null();
    /** @brief @p json as it is: a value already written as compact JSON (an array of rows, say). */
    JsonWriter &raw(QByteArrayView json);

    /** @brief key(@p name) then value(@p v). */
    template<typename T>
    JsonWriter &member(QByteArrayView name, const T &v)
    {
        return key(name).value(v);
    }
    JsonWriter &nullMember(QByteArrayView name) { return key(name).null(); }

private:
    JsonWriter &open(char bracket);
    JsonWriter &close(char bracket);
    /** @brief Room for @p bytes more at the end of the buffer (uninitialised): where to write them. */
    char *claim(qsizetype bytes);
    /** @brief Ends the buffer at @p end (after a claim() that used less than it asked for). */
    void release(const char *end);
    /** @brief Writes the comma that separates this value from the previous one, if any, at @p p. */
    char *separate(char *p);
    static qsizetype maxStringBytes(QStringView text);
    static char *writeString(char *p, QStringView text);

    QByteArray &m_out;
    bool m_first = true;      ///< nothing written yet in the innermost object or array
    bool m_afterKey = false;  ///< a key was written: the value needs no separator
};

} // namespace marquee
