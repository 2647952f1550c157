// SPDX-License-Identifier: AGPL-3.0-or-later
#include "jsonwriter.h"

#include <charconv>

namespace marquee {

void JsonWriter::separate()
{
    if (m_afterKey)
        m_afterKey = false;
    else if (!m_first)
        m_out.append(',');
    m_first = false;
}

JsonWriter &JsonWriter::open(char bracket)
{
    separate();
    m_out.append(bracket);
    m_first = true;
    return *this;
}

JsonWriter &JsonWriter::close(char bracket)
{
    m_out.append(bracket);
    m_first = false;
    return *this;
}

JsonWriter &JsonWriter::key(QByteArrayView name)
{
    separate();
    m_out.append('"').append(name).append("\":");
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::value(qint64 number)
{
    separate();
    char digits[24];
    m_out.append(digits, std::to_chars(digits, digits + sizeof digits, number).ptr - digits);
    return *this;
}

JsonWriter &JsonWriter::value(bool flag)
{
    separate();
    m_out.append(flag ? QByteArrayView("true") : QByteArrayView("false"));
    return *this;
}

JsonWriter &JsonWriter::value(QStringView text)
{
    separate();
    appendString(m_out, text);
    return *this;
}

JsonWriter &JsonWriter::null()
{
    separate();
    m_out.append("null");
    return *this;
}

JsonWriter &JsonWriter::raw(QByteArrayView json)
{
    separate();
    m_out.append(json);
    return *this;
}

void JsonWriter::appendString(QByteArray &out, QStringView text)
{
    out.append('"');
    // Runs of characters that need no escape are converted to UTF-8 in one go.
    qsizetype runStart = 0;
    const auto flush = [&](qsizetype end) {
        if (end > runStart)
            out.append(text.sliced(runStart, end - runStart).toUtf8());
    };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() && QChar::isLowSurrogate(text[i + 1].unicode())) {
            ++i; // a pair: one character outside the BMP, written as UTF-8
            continue;
        }
        if (c >= 0x20 && c != u'"' && c != u'\\' && !QChar::isSurrogate(c))
            continue;
        flush(i);
        runStart = i + 1;
        switch (c) {
        case u'"': out.append("\\\""); break;
        case u'\\': out.append("\\\\"); break;
        case u'\b': out.append("\\b"); break;
        case u'\f': out.append("\\f"); break;
        case u'\n': out.append("\\n"); break;
        case u'\r': out.append("\\r"); break;
        case u'\t': out.append("\\t"); break;
        default: {
            // Other control characters, and a lone surrogate (which has no UTF-8 form), as \uXXXX like Qt.
            static constexpr char kHex[] = "0123456789abcdef";
            const char escaped[] = {'\\', 'u', kHex[c >> 12], kHex[(c >> 8) & 0xf], kHex[(c >> 4) & 0xf], kHex[c & 0xf]};
            out.append(escaped, sizeof escaped);
        }
        }
    }
    flush(text.size());
    out.append('"');
}

} // namespace marquee
