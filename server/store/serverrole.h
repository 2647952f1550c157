// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include "store/database.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace marquee::store {

/**
 * @brief The database role the server serves as, and exactly the rights it has.
 *
 * Migrations run as the owner role (`marquee`, or the role of --database-owner-url); the server then serves as a
 * separate role that is no superuser and may create nothing: it reads and writes the rows of the schema's tables,
 * adds to the audit log but never changes or deletes an entry, reads schema_migrations and schema_functions, and
 * may not add or delete devices or staff (marquee-admin, as the owner, does that). grant() applies this after
 * the migrations at every start, to every table of the schema (so tables of later migrations are covered without
 * a change here) with those exceptions; default privileges cover tables the owner creates while a server runs.
 */
namespace ServerRole {

/** @brief The role the server serves as on the embedded cluster. */
inline constexpr const char *kEmbeddedRole = "marquee_server";

/**
 * @brief As a superuser (the embedded cluster's owner): create or update the login role @p role with @p password,
 * no superuser and without any of the rights to create databases or roles, replicate or bypass row security.
 */
bool ensureLoginRole(const Database &owner, const QString &role, const QString &password, QString *error);

/** @brief As the owner, after the migrations: give @p role the rights it needs and take away any others. */
bool grant(const Database &owner, const QString &role, QString *error);

/**
 * @brief What @p role may do that a serving role must not (superuser, CREATE on the database or schema, server
 * programs or files, changing the audit log, minting devices). Empty: nothing. std::nullopt with @p error when the
 * catalogue could not be read.
 */
std::optional<QStringList> excessRights(const Database &database, const QString &role, QString *error);

} // namespace ServerRole

} // namespace marquee::store
