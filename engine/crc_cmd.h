/* crc_cmd.h - the `capa-engine crc` command: count, show N, check ARRAY, fen N, seed S. */
#ifndef CAPA_ENGINE_CRC_CMD_H
#define CAPA_ENGINE_CRC_CMD_H

int crc_cmd_main(int argc, char **argv);

#endif
