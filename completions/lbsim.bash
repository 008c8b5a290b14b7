# bash completion for lbsim: commands, each command's options, balancer
# names (--balancer, list, explain), GROUP.KEY=... for --set and --vary,
# papers for reproduce, techniques and curves for chunks and curve, and
# files of the kind each option takes (.json, .csv, folders, ...). Everything comes from
# lbsim itself (lbsim --help, lbsim COMMAND --help, lbsim list --names and
# --keys, lbsim reproduce), so plugins' balancers complete too.

_lbsim_commands()
{
  "$1" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p; s/^  \([a-z][a-z-]*\)$/\1/p'
}

_lbsim_options()
{
  # -x, --long=VALUE  text  /  --long  text
  "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u
  echo --plugin
}

_lbsim()
{
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion -n = || return
  else
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi
  local lbsim=${words[0]}
  if [[ $cword -eq 1 ]]; then
    COMPREPLY=($(compgen -W "$(_lbsim_commands "$lbsim") --help --version" -- "$cur"))
    return
  fi
  local command=${words[1]}
  case $prev in
    -b | --balancer)
      COMPREPLY=($(compgen -W "$("$lbsim" list --names 2>/dev/null)" -- "$cur"))
      return
      ;;
    -s | --set)
      local keys
      keys=$("$lbsim" list --keys 2>/dev/null | sed 's/$/=/')
      compopt -o nospace 2>/dev/null
      COMPREPLY=($(compgen -W "$keys" -- "$cur"))
      return
      ;;
    --plugin)
      COMPREPLY=($(compgen -f -X '!*.so' -- "$cur") $(compgen -d -- "$cur"))
      return
      ;;
    --platform)
      COMPREPLY=($(compgen -f -X '!*.xml' -- "$cur") $(compgen -d -- "$cur"))
      return
      ;;
    --picture-format)
      COMPREPLY=($(compgen -W "png svg pdf" -- "$cur"))
      return
      ;;
    --scheduler)
      COMPREPLY=($(compgen -W "plain parallel slurm" -- "$cur"))
      return
      ;;
    --chart-scale)
      COMPREPLY=($(compgen -W "auto linear log" -- "$cur"))
      return
      ;;
    --figure-size)
      # a column, a page's width (inches, millimetres), or WIDTHxHEIGHT
      COMPREPLY=($(compgen -W "3.4in 7in 86mm 178mm" -- "$cur"))
      return
      ;;
    --figure-font)
      COMPREPLY=($(compgen -W "7 8 9 10" -- "$cur"))
      return
      ;;
    --vary)
      # the axes sweep knows, then every GROUP.KEY; balancer= takes labels
      if [[ $cur == balancer=* ]]; then
        local labels
        labels=$("$lbsim" list --names 2>/dev/null)
        COMPREPLY=($(compgen -P balancer= -W "$labels" -- "${cur#balancer=}"))
        return
      fi
      local axes
      axes="ranks= platform= seed= steps= balancer= $("$lbsim" list --keys 2>/dev/null | sed 's/$/=/')"
      compopt -o nospace 2>/dev/null
      COMPREPLY=($(compgen -W "$axes" -- "$cur"))
      return
      ;;
    --replicates)
      # a varied key: those given to --vary on this line
      local i axes=
      for ((i = 1; i < cword; i++)); do
        [[ ${words[i - 1]} == --vary ]] && axes+=" ${words[i]%%=*}"
      done
      COMPREPLY=($(compgen -W "$axes" -- "$cur"))
      return
      ;;
    # files by what each option writes or reads
    -o | --json)
      COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
      return
      ;;
    --csv | --long-csv | --stats-csv)
      COMPREPLY=($(compgen -f -X '!*.csv' -- "$cur") $(compgen -d -- "$cur"))
      return
      ;;
    --report | --state | --pictures | --partition-pictures)
      COMPREPLY=($(compgen -d -- "$cur"))
      return
      ;;
    --paje)
      COMPREPLY=($(compgen -f -X '!*.paje' -- "$cur") $(compgen -d -- "$cur"))
      return
      ;;
    --emit-jobs | --message-trace)
      COMPREPLY=($(compgen -f -- "$cur"))
      return
      ;;
    --lbsim)
      COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur"))
      return
      ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_lbsim_options "$lbsim" "$command")" -- "$cur"))
    return
  fi
  case $command in
    list | explain)
      COMPREPLY=($(compgen -W "$("$lbsim" list --names 2>/dev/null)" -- "$cur"))
      [[ $command == explain ]] && COMPREPLY+=($(compgen -f -X '!*.ini' -- "$cur"))
      ;;
    reproduce)
      COMPREPLY=($(compgen -W "$("$lbsim" reproduce 2>/dev/null | sed -n 's/^  \([a-z0-9][a-z0-9]*\) .*/\1/p')" -- "$cur"))
      ;;
    help)
      COMPREPLY=($(compgen -W "$(_lbsim_commands "$lbsim")" -- "$cur"))
      ;;
    chunks | curve)
      # the names the command's usage line lists: stat|ss|... or hilbert|morton
      local names
      names=$("$lbsim" "$command" --help 2>/dev/null | sed -n 's/^  lbsim [a-z-]* .* \([a-z0-9|]*|[a-z0-9|]*\)$/\1/p' | tr '|' ' ')
      COMPREPLY=($(compgen -W "$names" -- "$cur"))
      ;;
    report)
      COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
      ;;
    run-job)
      COMPREPLY=($(compgen -f -X '!*.job' -- "$cur") $(compgen -f -X '!*.result' -- "$cur")
        $(compgen -d -- "$cur"))
      ;;
    merge)
      COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.result' -- "$cur"))
      ;;
    run | check | sweep)
      # scenario files here, and the shipped scenarios by name
      COMPREPLY=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur")
        $(compgen -W "$("$lbsim" list --scenarios 2>/dev/null | sed -n 's/^  \([^ ]*\).*/\1/p')" -- "$cur"))
      ;;
    *)
      COMPREPLY=($(compgen -f -- "$cur"))
      ;;
  esac
}
complete -F _lbsim lbsim
