// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringView>
#include <optional>

namespace marquee {

/**
 * @brief Text that may be stored, compared and logged: no NUL, no lone surrogate, no C0 control character and no
 * DEL, except tab, line feed and carriage return when @p allowLineBreaks (free text such as a note; never in a path,
 * a query value or an id).
 */
bool isCleanText(QStringView text, bool allowLineBreaks);

/**
 * @brief The same rule for every string of a JSON document (keys too), decided on its raw bytes in one pass
 * without parsing it: the bytes are valid UTF-8, and neither a raw byte nor a `\u` escape is NUL, another control
 * character other than tab, line feed and carriage return, or half a surrogate pair. Says nothing about whether
 * the document is well-formed JSON (its parser does).
 */
bool isCleanJsonText(const QByteArray &json);

/**
 * @brief A positive id in its one canonical spelling, `[1-9][0-9]*` within 18 digits: no sign, no leading zero,
 * no whitespace, nothing after it. std::nullopt for anything else (`+1`, `01`, ` 7`, `14/`).
 */
std::optional<qint64> canonicalId(QStringView text);

/** @brief @p text with every control character (and DEL and backslash) written as `\xHH`, for a log line. */
QString escapedForLog(QStringView text);

} // namespace marquee
